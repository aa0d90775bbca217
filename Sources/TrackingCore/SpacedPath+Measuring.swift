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
    /// most `mostPoints`, and weighs one fewer too, only tracks of as few points bound it; where a
    /// place is owed (`meets`), only tracks that meet it.
    init(count: Int, asked: [Int], allowed: (Int, Int) -> Bool, tolerance: Double, mostPoints: Int?, meets: [Bool] = [],
         measuring: Measure) {
        self.init(count: count)
        self.meets = meets
        let end = count - 1
        /// The smallest largest distance of a track measured so far, of at most `fewest` points.
        var nearest = Double.infinity
        let fewest = mostPoints.map { $0 > 1 ? $0 - 1 : $0 } ?? .max
        func figures(_ a: Int, _ b: Int) -> Measured? {
            guard let pair = measuring(a, b, max(tolerance, nearest) + 1e-9) else { return nil }
            if b == end { keepsEnd[a] = pair.keepsEnd }
            return Measured(a: a, b: b, cost: pair.worst, over: pair.over)
        }
        // First the tracks of one segment and of two, for the bound: from the origin, and on into
        // the newest fix. A track bounds the rest when it keeps few enough points. Their pairs are
        // held until their turn comes in order.
        var fromOrigin = [Measured?](repeating: nil, count: count)
        var intoEnd = [Measured?](repeating: nil, count: count)
        /// Of each candidate, whether its pair into the newest fix was tried already (of the
        /// origin, the pair from it into the newest fix).
        var tried = [Bool](repeating: false, count: count)
        tried[0] = true
        /// Whether a track through `c` (0: none) into the newest fix meets the place owed.
        func met(_ c: Int) -> Bool { meets.isEmpty || c > 0 && meets[c] || keepsEnd[c] && meets[end] }
        if allowed(0, end), let pair = figures(0, end) {
            intoEnd[0] = pair
            if (keepsEnd[0] ? 1 : 0) <= fewest, met(0) { nearest = pair.cost }
        }
        for c in 1..<end where asked[c] > 0 && allowed(0, c) {
            guard let first = figures(0, c) else { continue }
            fromOrigin[c] = first
            tried[c] = true
            guard allowed(c, end), let second = figures(c, end) else { continue }
            intoEnd[c] = second
            if 1 + (keepsEnd[c] ? 1 : 0) <= fewest, met(c) { nearest = min(nearest, max(first.cost, second.cost)) }
        }
        // Every pair by its second candidate, then its first, as the weighing takes them (a
        // candidate is reached before a pair from it is asked): those held, and the rest measured.
        var reached = [Bool](repeating: false, count: count)
        reached[0] = true
        for b in 1...end {
            for a in 0..<(b == end ? b : asked[b]) where reached[a] {
                let held = b == end ? tried[a] : a == 0
                let pair = held ? (b == end ? intoEnd[a] : fromOrigin[b]) : allowed(a, b) ? figures(a, b) : nil
                guard let pair else { continue }
                measure(pair.a, pair.b, cost: pair.cost, over: pair.over)
                reached[b] = true
            }
        }
    }
}
