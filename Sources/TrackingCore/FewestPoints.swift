/// The offline optimum a streaming filter is measured against: the fewest points any track needs
/// so that every moving fix lies within `tolerance` of it (Imai and Iri's min-# problem), each
/// fix measured against the segment between the kept points around it in time.
///
/// Per moving stretch, a shortest path over the graph whose edges are the segments that cover
/// the fixes between their ends; edges are found in one sweep per start with a `DirectionCone`,
/// so a stretch of n fixes costs O(n²) at worst, far less where the road turns. A whole drive
/// costs the stretches' points plus one for each stop. For tests and benchmarks, not the daemon.
///
/// With `admits`, a segment must also pass a test of the caller's (the fidelity tests ask that it
/// pass near the true path): the fewest points a track needs to keep the fixes near and meet that
/// test too. A segment between consecutive fixes is always allowed, for no track joins them more
/// narrowly.
public enum FewestPoints {
    /// The fewest points, both ends included, whose polyline passes within `tolerance` of every
    /// point of `stretch` (in a plane, metres), the points chosen among `stretch`'s own; with
    /// `times` (seconds, one per point), no two consecutive points more than `maxInterval` apart;
    /// with `admits`, only the segments it admits (by the indices of their ends).
    public static func count(_ stretch: [(x: Double, y: Double)], times: [Double]? = nil, tolerance: Double,
                             maxInterval: Double = .infinity, admits: ((Int, Int) -> Bool)? = nil) -> Int {
        indices(stretch, times: times, tolerance: tolerance, maxInterval: maxInterval, admits: admits).count
    }

    /// Which points of `stretch` such a track keeps (one choice among the equally few), in order:
    /// where the optimum spends its points, to set beside where a filter spends its own.
    public static func indices(_ stretch: [(x: Double, y: Double)], times: [Double]? = nil, tolerance: Double,
                               maxInterval: Double = .infinity, admits: ((Int, Int) -> Bool)? = nil) -> [Int] {
        guard stretch.count > 2 else { return Array(stretch.indices) }
        let n = stretch.count
        var fewest = [Int](repeating: .max, count: n)
        /// The point before each on the fewest way to it.
        var before = [Int](repeating: -1, count: n)
        fewest[0] = 1
        for i in 0..<(n - 1) where fewest[i] != .max {
            let origin = stretch[i]
            var cone = DirectionCone(tolerance: tolerance)
            for j in (i + 1)..<n {
                // Consecutive fixes farther apart than `maxInterval` (a long tunnel) are joined
                // all the same: nothing else can join them.
                if let times, j > i + 1, times[j] - times[i] > maxInterval { break }
                if j > i + 1 { cone.add(relative(stretch[j - 1], to: origin)) }
                if cone.isEmpty { break }
                let end = relative(stretch[j], to: origin)
                let covered = cone.admits(end)
                    || (cone.contains(direction: end) && covers(stretch, from: i, to: j, tolerance: tolerance))
                guard covered, fewest[i] + 1 < fewest[j] else { continue }
                if j > i + 1, let admits, !admits(i, j) { continue }
                fewest[j] = fewest[i] + 1
                before[j] = i
            }
        }
        var chosen = [n - 1]
        while let last = chosen.last, before[last] >= 0 { chosen.append(before[last]) }
        return chosen.reversed()
    }

    /// The optimum for a drive: the fewest points for each moving stretch, plus one for each stop.
    /// A stop is a run of fixes that are not `isMoving` lasting `minimumStop` seconds or more, to
    /// the first moving fix after it (as the filter's `stop-delay` counts); a shorter pause, in
    /// stop-and-go traffic, is part of the stretch. Projected around the first fix. With
    /// `maxInterval` (the filter's `max-interval`, its heartbeat), no two consecutive points of a
    /// stretch more than that many seconds apart: the fewest a track that also proves life needs.
    /// With `admits`, only the segments it admits (by the fixes at their ends).
    public static func count(_ fixes: [Location], tolerance: Double, minimumStop: Double = 5, maxInterval: Double = .infinity,
                             admits: ((Location, Location) -> Bool)? = nil, isMoving: (Location) -> Bool) -> Int {
        points(fixes, tolerance: tolerance, minimumStop: minimumStop, maxInterval: maxInterval, admits: admits, isMoving: isMoving).count
    }

    /// The points `count` counts, in time order: each moving stretch's (`indices`), and for each
    /// stop the fix where the vehicle came to rest.
    public static func points(_ fixes: [Location], tolerance: Double, minimumStop: Double = 5, maxInterval: Double = .infinity,
                              admits: ((Location, Location) -> Bool)? = nil, isMoving: (Location) -> Bool) -> [Location] {
        guard let first = fixes.first else { return [] }
        let plane = LocalPlane(latitude: first.latitude, longitude: first.longitude)
        var chosen: [Location] = []
        /// The moving stretch so far; its plane and times are taken when it is counted.
        var stretch: [Location] = []
        var pause: [Location] = []
        func chooseInStretch() {
            let kept = indices(stretch.map { plane.project($0) }, times: stretch.map { first.time.seconds(to: $0.time) }, tolerance: tolerance,
                               maxInterval: maxInterval, admits: admits.map { admits in { admits(stretch[$0], stretch[$1]) } })
            chosen += kept.map { stretch[$0] }
        }
        func endPause(at next: Location?) {
            guard let start = pause.first, let end = next ?? pause.last else { return }
            if start.time.seconds(to: end.time) >= minimumStop {
                chooseInStretch()
                chosen.append(start)
                stretch.removeAll()
            } else {
                stretch += pause
            }
            pause.removeAll()
        }
        for fix in fixes {
            if isMoving(fix) {
                endPause(at: fix)
                stretch.append(fix)
            } else {
                pause.append(fix)
            }
        }
        endPause(at: nil)
        chooseInStretch()
        return chosen
    }

    /// The exact check, for an end nearer the start than a point between them (a U-turn).
    static func covers(_ points: [(x: Double, y: Double)], from i: Int, to j: Int, tolerance: Double) -> Bool {
        var k = i + 1
        while k < j {
            if LocalPlane.distance(from: points[k], toSegment: points[i], points[j]) > tolerance { return false }
            k += 1
        }
        return true
    }

    static func relative(_ p: (x: Double, y: Double), to origin: (x: Double, y: Double)) -> (x: Double, y: Double) {
        (p.x - origin.x, p.y - origin.y)
    }
}
