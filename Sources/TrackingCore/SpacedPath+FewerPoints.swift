extension SpacedPath {
    /// `points`' weighing among the tracks of at most `most` points, where it kept more than the
    /// wishes it meets allow: first the smallest largest distance such a track can have, then
    /// within it the least excess, the fewest points, the nearest. Nodes are candidates as in
    /// `points` (0 the origin, `end` the newest fix); a state is a candidate and the points kept
    /// to reach it. `cost` is infinite for a pair the rule forbids or never measured (one whose
    /// first candidate the path cannot reach); `keepsEnd` says whether a segment from a candidate
    /// into the end keeps the end as a point. Nil when no such track exists.
    ///
    /// Weighing the excess over the tolerance before the count let a choice keep two points more
    /// than the wishes it met, to save a metre of excess: unseen road 5151 under DistanceBased
    /// kept 21 points against 20 without a rule, at the same distance from the true path (18
    /// with this; on the suite's drives no choice keeps two more).
    static func choice(atMost most: Int, end: Int, tolerance: Double, cost: (Int, Int) -> Double,
                       over: (Int, Int) -> Double, keepsEnd: (Int) -> Bool) -> (nodes: [Int], endKept: Bool)? {
        let states = most + 1
        func kept(_ a: Int, _ b: Int, after n: Int) -> Int { n + (b == end && !keepsEnd(a) ? 0 : 1) }
        // 1. The smallest largest distance among such tracks.
        var narrowest = [Double](repeating: .infinity, count: (end + 1) * states)
        narrowest[0] = 0
        for b in 1...end {
            for a in 0..<b where cost(a, b).isFinite {
                for n in 0...most where narrowest[a * states + n].isFinite && kept(a, b, after: n) <= most {
                    let state = b * states + kept(a, b, after: n)
                    narrowest[state] = min(narrowest[state], max(narrowest[a * states + n], cost(a, b)))
                }
            }
        }
        let within = max(tolerance, narrowest[(end * states)...].min() ?? .infinity) + 1e-9
        // 2. Within it, the same order as `points`.
        var best = [Choice?](repeating: nil, count: (end + 1) * states)
        var parent = [(node: Int, kept: Int)](repeating: (-1, -1), count: (end + 1) * states)
        best[0] = Choice(excess: 0, count: 0, worst: 0, spread: 0)
        for b in 1...end {
            for a in 0..<b where cost(a, b) <= within {
                let c = cost(a, b)
                for n in 0...most where kept(a, b, after: n) <= most {
                    guard let from = best[a * states + n] else { continue }
                    let state = b * states + kept(a, b, after: n)
                    let candidate = Choice(excess: from.excess + max(0, over(a, b)), count: from.count + 1,
                                           worst: max(from.worst, c), spread: from.spread + c * c)
                    if best[state].map(candidate.isBetter) ?? true { (best[state], parent[state]) = (candidate, (a, n)) }
                }
            }
        }
        let ends = (0...most).filter { best[end * states + $0] != nil }
        guard let n = ends.min(by: { best[end * states + $0]!.isBetter(than: best[end * states + $1]!) }) else { return nil }
        var nodes: [Int] = []
        var state = parent[end * states + n]
        let last = state.node
        while state.node > 0 {
            nodes.append(state.node)
            state = parent[state.node * states + state.kept]
        }
        return (nodes.reversed(), keepsEnd(last))
    }
}
