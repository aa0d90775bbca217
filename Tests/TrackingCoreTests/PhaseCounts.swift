import TrackingCore

/// Two tracks' points counted by the phase of the drive each stands in (the ground truth's
/// "corner", "curve", "redlight"...), and where the counts differ: a drive's excess over the
/// optimum put where it is spent. On make_drive's route it is in the corners and the highway's
/// curve, not spread over the drive.
struct PhaseCounts {
    /// Per phase, the kept points and the fewest's, in the order each phase first appears.
    var counts: [(phase: String, kept: Int, fewest: Int)]

    init(kept: [Location], fewest: [Location], phaseByTime: [FixTime: String]) {
        var counts: [(phase: String, kept: Int, fewest: Int)] = []
        func add(_ point: Location, kept: Int, fewest: Int) {
            let phase = phaseByTime[point.time] ?? "-"
            if let index = counts.firstIndex(where: { $0.phase == phase }) {
                counts[index].kept += kept
                counts[index].fewest += fewest
            } else {
                counts.append((phase, kept, fewest))
            }
        }
        for point in (kept.map { ($0, true) } + fewest.map { ($0, false) }).sorted(by: { $0.0.time < $1.0.time }) {
            add(point.0, kept: point.1 ? 1 : 0, fewest: point.1 ? 0 : 1)
        }
        self.counts = counts
    }

    /// "where the points differ from the fewest's: corner 8 against 4, ...", or that they do not.
    var differences: String {
        let differing = counts.filter { $0.kept != $0.fewest }
        guard !differing.isEmpty else { return "kept as many as the fewest in every phase" }
        return "where the points differ from the fewest's: " + differing.map { "\($0.phase) \($0.kept) against \($0.fewest)" }.joined(separator: ", ")
    }
}
