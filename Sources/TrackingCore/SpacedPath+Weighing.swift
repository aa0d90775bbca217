extension SpacedPath {
    /// The pairs of candidates a choice weighs, measured once. Candidates are numbered as in
    /// `points` (0 the origin, the last the newest fix).
    struct Pairs {
        /// One pair measured: the largest distance from a fix between `a` and `b` to their
        /// segment, and the most any of them is beyond its room, as the second step weighs it.
        /// A pair not measured is one the rule forbids, or one whose first candidate the path
        /// cannot reach.
        struct Measured {
            var a: Int
            var b: Int
            var cost: Double
            var over: Double
        }

        /// Candidates.
        let count: Int
        /// Whether a segment from the candidate into the newest fix keeps the newest as a point
        /// (else the stretch after the candidate stays open).
        var keepsEnd: [Bool]
        /// Which candidates meet the place owed (`SpacedPath.points(meeting:endMeets:)`), the
        /// newest fix's entry counting where it is kept; empty when no place is owed. A track
        /// must keep one of them, anywhere along it.
        var meets: [Bool] = []
        /// The pairs measured: the weighing goes through these alone, not through every pair the
        /// candidates could make (at 1 Hz under TimeBased, fewer than 100 a choice, of up to 1,770),
        /// so they are all it keeps (a table of every pair cost a choice two arrays of
        /// `count` squared, filled and copied: the copy alone was 4 % of the spacing's
        /// instructions under TimeBased at 1 Hz).
        private(set) var measured: [Measured] = []
        /// Whether `measured` came by its second candidate, then its first, as the measuring init
        /// gives them.
        private var ordered = true

        init(count: Int) {
            self.count = count
            keepsEnd = [Bool](repeating: false, count: count)
        }

        /// A pair measured: its largest distance and its most beyond the room.
        mutating func measure(_ a: Int, _ b: Int, cost: Double, over: Double) {
            if let last = measured.last, (last.b, last.a) >= (b, a) { ordered = false }
            measured.append(Measured(a: a, b: b, cost: cost, over: over))
        }

        /// The pairs measured by their second candidate, then their first: a path reaches a
        /// candidate by every pair into it before it goes on from there. The measuring init gives
        /// them in that order already; sorted only when they came otherwise.
        var inOrder: [Measured] { ordered ? measured : measured.sorted { ($0.b, $0.a) < ($1.b, $1.a) } }
    }

    /// A track chosen: the candidates kept before the newest fix, whether the newest is kept too,
    /// and the figures it was weighed by.
    typealias Chosen = (nodes: [Int], endKept: Bool, figures: Choice)

    /// `points`' choice: the best track (`choice(_:atMost:tolerance:excessAlike:)`); where it
    /// keeps more than `most` points, the best of at most `most`; and where it keeps `most`, one
    /// point fewer unless the last point takes more than `Choice.pointWorth` off the summed
    /// excess.
    static func choice(_ pairs: Pairs, mostPoints most: Int?, tolerance: Double, excessAlike: Double) -> Chosen? {
        guard var choice = choice(pairs, tolerance: tolerance, excessAlike: excessAlike) else { return nil }
        guard let most else { return choice }
        func kept(_ choice: Chosen) -> Int { choice.nodes.count + (choice.endKept ? 1 : 0) }
        if kept(choice) > most, let fewer = Self.choice(pairs, atMost: most, tolerance: tolerance, excessAlike: excessAlike) {
            choice = fewer
        }
        if most > 1, kept(choice) == most, let fewer = Self.choice(pairs, atMost: most - 1, tolerance: tolerance, excessAlike: excessAlike),
           fewer.figures.excess <= choice.figures.excess + Choice.pointWorth {
            choice = fewer
        }
        return choice
    }

    /// `points`' weighing: first the smallest largest distance a track can have, then within it
    /// the least excess, the fewest points, the nearest. With `most`, among the tracks of at most
    /// that many points, a state being a candidate and the points kept to reach it; without, one
    /// state a candidate. Nil when no track reaches the newest fix.
    ///
    /// The bound is there because weighing the excess over the tolerance before the count let a
    /// choice keep two points more than the wishes it met, to save a metre of excess: unseen road
    /// 5151 under DistanceBased kept 21 points against 20 without a rule, at the same distance
    /// from the true path (18 with the bound; on the suite's drives no choice keeps two more).
    static func choice(_ pairs: Pairs, atMost most: Int? = nil, tolerance: Double,
                       excessAlike: Double = Choice.sameExcess) -> Chosen? {
        let end = pairs.count - 1
        // A state is the points kept to reach a candidate (with `most`) and, where a place is
        // owed, whether the track has met it yet.
        let meeting = !pairs.meets.isEmpty
        let flags = meeting ? 2 : 1
        let states = ((most ?? 0) + 1) * flags
        /// The state a segment from `a` to `b` leads to from state `s`; nil beyond `most`.
        func next(_ a: Int, _ b: Int, after s: Int) -> Int? {
            let kept = b != end || pairs.keepsEnd[a]
            let met = meeting && (s % flags == 1 || kept && pairs.meets[b])
            let n = (s / flags) + (most != nil && kept ? 1 : 0)
            guard n <= (most ?? 0) else { return nil }
            return n * flags + (met ? 1 : 0)
        }
        /// Whether a track reaching the newest fix in state `s` is one the choice may make.
        func complete(_ s: Int) -> Bool { !meeting || s % flags == 1 }
        // 1. The smallest largest distance.
        var narrowest = [Double](repeating: .infinity, count: pairs.count * states)
        narrowest[0] = 0
        let measured = pairs.inOrder
        for pair in measured {
            let (a, b, cost) = (pair.a, pair.b, pair.cost)
            for n in 0..<states where narrowest[a * states + n].isFinite {
                guard let k = next(a, b, after: n) else { continue }
                narrowest[b * states + k] = min(narrowest[b * states + k], max(narrowest[a * states + n], cost))
            }
        }
        let within = max(tolerance, (0..<states).filter(complete).map { narrowest[end * states + $0] }.min() ?? .infinity) + 1e-9
        guard within.isFinite else { return nil }
        // 2. Within it, the least excess, the fewest points, the nearest.
        var best = [Choice?](repeating: nil, count: pairs.count * states)
        var parent = [(node: Int, kept: Int)](repeating: (-1, -1), count: pairs.count * states)
        best[0] = Choice(excess: 0, count: 0, worst: 0, spread: 0)
        for pair in measured where pair.cost <= within {
            let (a, b, cost, over) = (pair.a, pair.b, pair.cost, max(0, pair.over))
            for n in 0..<states {
                guard let from = best[a * states + n], let k = next(a, b, after: n) else { continue }
                let candidate = Choice(excess: from.excess + over, count: from.count + 1,
                                       worst: max(from.worst, cost), spread: from.spread + cost * cost)
                if best[b * states + k].map({ candidate.isBetter(than: $0, excessAlike: excessAlike) }) ?? true {
                    (best[b * states + k], parent[b * states + k]) = (candidate, (a, n))
                }
            }
        }
        let ends = (0..<states).filter { complete($0) && best[end * states + $0] != nil }
        guard let n = ends.min(by: { best[end * states + $0]!.isBetter(than: best[end * states + $1]!, excessAlike: excessAlike) }) else { return nil }
        var nodes: [Int] = []
        var state = parent[end * states + n]
        let last = state.node
        while state.node > 0 {
            nodes.append(state.node)
            state = parent[state.node * states + state.kept]
        }
        return (nodes.reversed(), pairs.keepsEnd[last], best[end * states + n]!)
    }

    /// A path's figures in the second step, in the order they are weighed.
    struct Choice {
        var excess: Double
        var count: Int
        var worst: Double
        var spread: Double

        /// Summed excesses nearer than this are the same (what the sums' rounding leaves apart).
        static let sameExcess = 1e-6

        /// Under a distance rule a choice keeps at most `SpacedPath.mostPoints` (one more than the
        /// wishes it meets; as many, where a heartbeat and a corner are weighed together), and the
        /// last of them only when it takes more than this off the summed excess over the
        /// tolerance, metres. In a roundabout 22 m in radius under DistanceBased (a random road of
        /// our own at 5 Hz), four points for three wishes saved 0.12 m against three, and the
        /// track kept a point more than without a rule at the same distance from the true path.
        /// A band on every comparison of the excess costs the bends' insides instead
        /// (`timeBasedExcessAlike`); this one weighs only the last point.
        static let pointWorth = 0.2

        /// Excesses within `excessAlike` of each other weigh the same, and the count decides.
        func isBetter(than other: Choice, excessAlike: Double) -> Bool {
            if abs(excess - other.excess) > excessAlike { return excess < other.excess }
            if count != other.count { return count < other.count }
            if abs(worst - other.worst) > 1e-6 { return worst < other.worst }
            return spread < other.spread
        }
    }
}
