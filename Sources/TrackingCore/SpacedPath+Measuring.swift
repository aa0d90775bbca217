extension SpacedPath.Pairs {
    /// A pair measured, when its largest distance is no more than it was asked to be: that
    /// distance, the most any fix is beyond its room, and into the newest fix whether the newest
    /// is kept (else the stretch after the first candidate stays open).
    typealias Measure = (_ a: Int, _ b: Int, _ within: Double) -> (worst: Double, over: Double, keepsEnd: Bool)?

    /// The pairs of `count` candidates a choice weighs (the last, `count - 1`, the newest fix),
    /// each measured only from a candidate a track can reach: those the rule `allowed`, and
    /// before a candidate other than the newest only the first `asked` of them (`askable`).
    ///
    /// A pair farther off its fixes than a track already found is passed over, and `measuring`
    /// is asked to give up on it as soon as a fix shows it is: the weighing keeps no pair farther
    /// than the smallest largest distance of a track (or than `tolerance`, if more), so none of
    /// these could be kept, nor any track through the candidates only they reach. The tracks of
    /// one and two segments are measured first, for the bound: under TimeBased two pairs in
    /// three lie beyond it, and each was measured to its last block. Where the weighing keeps at
    /// most `mostPoints`, and weighs one fewer too, only tracks of as few points bound it.
    init(count: Int, asked: [Int], allowed: (Int, Int) -> Bool, tolerance: Double, mostPoints: Int?, measuring: Measure) {
        self.init(count: count)
        let end = count - 1
        var reached = [Bool](repeating: false, count: count)
        reached[0] = true
        /// The smallest largest distance of a track measured so far, of at most `fewest` points.
        var nearest = Double.infinity
        let fewest = mostPoints.map { $0 > 1 ? $0 - 1 : $0 } ?? .max
        func measured(_ a: Int, _ b: Int) -> Double? {
            guard let pair = measuring(a, b, max(tolerance, nearest) + 1e-9) else { return nil }
            self.measure(a, b, cost: pair.worst, over: pair.over)
            if b == end { keepsEnd[a] = pair.keepsEnd }
            reached[b] = true
            return pair.worst
        }
        // First the tracks of one segment and of two, for the bound: from the origin, and on into
        // the newest fix. A track bounds the rest when it keeps few enough points.
        /// Of each candidate, whether its pair into the newest fix was tried already; of the
        /// origin, every pair from it.
        var tried = [Bool](repeating: false, count: count)
        tried[0] = true
        if allowed(0, end), let worst = measured(0, end), (keepsEnd[0] ? 1 : 0) <= fewest { nearest = worst }
        for c in 1..<end where asked[c] > 0 && allowed(0, c) {
            guard let first = measured(0, c) else { continue }
            tried[c] = true
            if allowed(c, end), let second = measured(c, end), 1 + (keepsEnd[c] ? 1 : 0) <= fewest {
                nearest = min(nearest, max(first, second))
            }
        }
        // The rest by their second candidate, then their first: a candidate is reached before a
        // pair from it is asked.
        for b in 1...end {
            for a in 0..<(b == end ? b : asked[b]) where reached[a] && !(b == end ? tried[a] : a == 0) && allowed(a, b) {
                _ = measured(a, b)
            }
        }
        putInOrder()
    }
}
