extension SpacedPath {
    /// The fixes a choice weighs, on the plane, in blocks of `size` consecutive fixes, each with a
    /// bound on how far its fixes can be from a segment: a segment's farthest fix is found
    /// without measuring every fix.
    ///
    /// A choice measures each pair of candidates it weighs against every fix between them, and
    /// under TimeBased a pair spans at least 30 s (300 fixes at 10 Hz): that measuring was most of
    /// the filter's CPU there. A block that could not raise the largest distance, nor the excess
    /// over a fix's room, is passed over; the blocks that can are measured fix by fix, as before.
    /// The figures are the same as measuring every fix, not an estimate: the choice keeps the
    /// same points. Under TimeBased at 10 Hz a pair spans 431 fixes on average and 30 of them are
    /// measured; at 1 Hz, 14 of 45.
    struct FixBlocks {
        /// Fixes in a block.
        static let size = 8

        /// Each fix on the plane (node 0, `origin`, first).
        let points: [(x: Double, y: Double)]
        /// The turn at each fix (`TurnWatch`).
        let turns: [TurnWatch.Turn]
        /// Whether each fix is the first after a gap (`MotionTriggers.gapSeconds`).
        let afterGap: [Bool]
        /// The room a fix has: `tolerance`, on a bend's inside `tolerance * turnShare`, and on both
        /// sides of the first fix after a gap `tolerance * gapShare`, as the deviation trigger has.
        let tolerance: Double
        /// Each block's chord, from its first fix to its last, and how far its farthest fix is from
        /// that chord: no fix of the block is farther from a segment than the chord's farther end
        /// plus that (the distance to a segment is convex, so along the chord it is largest at an
        /// end). A circle about the block bounded it too, but at 1 Hz a block is 100 m of road and
        /// its circle as wide; the chord's bound is only as wide as the road bends in the block.
        private var chords: [(from: (x: Double, y: Double), to: (x: Double, y: Double))] = []
        private var radii: [Double] = []
        /// The least room any fix of the block can have.
        private var rooms: [Double] = []

        init(points: [(x: Double, y: Double)], turns: [TurnWatch.Turn], afterGap: [Bool], tolerance: Double) {
            self.points = points
            self.turns = turns
            self.afterGap = afterGap
            self.tolerance = tolerance
            for start in stride(from: 0, to: points.count, by: Self.size) {
                let block = start..<min(points.count, start + Self.size)
                let chord = (from: points[block.lowerBound], to: points[block.upperBound - 1])
                var squared = 0.0
                for k in block {
                    squared = max(squared, LocalPlane.squaredDistance(from: points[k], toSegment: chord.from, chord.to))
                }
                chords.append(chord)
                // A hair more than the farthest fix, so that rounding never leaves one outside.
                radii.append(squared.squareRoot() * (1 + 1e-9) + 1e-9)
                rooms.append(tolerance * (afterGap[block].contains(true) ? MotionTriggers.gapShare
                    : turns[block].contains { $0 != .straight } ? MotionTriggers.turnShare : 1))
            }
        }

        /// The largest distance from a fix in `range` to the segment from `a` to `b`, and the most
        /// any of them is beyond its room (negative when none is; -infinity for no fix).
        func reach(_ range: Range<Int>, from a: (x: Double, y: Double), to b: (x: Double, y: Double)) -> (worst: Double, over: Double) {
            var largest = Largest()
            // A range of two blocks or fewer is measured whole: its bounds would pass few fixes over.
            guard range.count > 2 * Self.size else {
                measure(range, from: a, to: b, &largest)
                return figures(largest)
            }
            // The blocks the range reaches into; the first and the last may hold fixes outside it,
            // and their bounds hold the fixes inside all the same.
            let first = range.lowerBound / Self.size, last = (range.upperBound - 1) / Self.size
            func fixes(_ block: Int) -> Range<Int> {
                max(range.lowerBound, block * Self.size)..<min(range.upperBound, (block + 1) * Self.size)
            }
            // The block whose bound reaches farthest from the segment is measured first, so that
            // the others are weighed against a large distance.
            return withUnsafeTemporaryAllocation(of: Double.self, capacity: last - first + 1) { reaches in
                var farthest = first
                for block in first...last {
                    let ends = max(LocalPlane.squaredDistance(from: chords[block].from, toSegment: a, b),
                                   LocalPlane.squaredDistance(from: chords[block].to, toSegment: a, b))
                    reaches[block - first] = ends.squareRoot() * (1 + 1e-9) + radii[block]
                    if reaches[block - first] > reaches[farthest - first] { farthest = block }
                }
                measure(fixes(farthest), from: a, to: b, &largest)
                var (worst, over) = figures(largest)
                for block in first...last where block != farthest {
                    let reach = reaches[block - first]
                    guard reach > worst || reach - rooms[block] > over else { continue }
                    measure(fixes(block), from: a, to: b, &largest)
                    (worst, over) = figures(largest)
                }
                return (worst, over)
            }
        }

        /// The largest squared distances measured, by the room of the fix: the whole, a bend's
        /// inside, after a gap (-1: none).
        private struct Largest {
            var roomy = -1.0, bend = -1.0, gap = -1.0
        }

        /// Measures the fixes in `fixes` against the segment, each by its room.
        private func measure(_ fixes: Range<Int>, from a: (x: Double, y: Double), to b: (x: Double, y: Double),
                             _ largest: inout Largest) {
            for k in fixes {
                let squared = LocalPlane.squaredDistance(from: points[k], toSegment: a, b)
                if afterGap[k] {
                    largest.gap = max(largest.gap, squared)
                } else if SpacedPath.insideOfABend(points[k], turns[k], a, b) {
                    largest.bend = max(largest.bend, squared)
                } else {
                    largest.roomy = max(largest.roomy, squared)
                }
            }
        }

        /// The largest distance and the most beyond its room, from the largest squared distance of
        /// each room: the square root and the room's subtraction keep their order, so taking them
        /// of those gives what taking them of every fix would.
        private func figures(_ largest: Largest) -> (worst: Double, over: Double) {
            func over(_ squared: Double, _ share: Double) -> Double {
                squared < 0 ? -.infinity : squared.squareRoot() - tolerance * share
            }
            return (max(0, largest.roomy, largest.bend, largest.gap).squareRoot(),
                    max(over(largest.roomy, 1), over(largest.bend, MotionTriggers.turnShare), over(largest.gap, MotionTriggers.gapShare)))
        }
    }
}
