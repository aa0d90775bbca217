extension SpacedPath {
    /// The fixes a choice weighs, on the plane, in blocks of `size` consecutive fixes, each with a
    /// circle that holds them all: a segment's farthest fix is found without measuring every fix.
    ///
    /// A choice measures each pair of candidates it weighs against every fix between them, and
    /// under TimeBased a pair spans at least 30 s (300 fixes at 10 Hz): that measuring was most of
    /// the filter's CPU there. No fix in a block is farther from a segment than the block's
    /// centre is plus its radius, so a block that could not raise the largest distance, nor the
    /// excess over a fix's room, is passed over; the blocks that can are measured fix by fix, as
    /// before. The figures are the same as measuring every fix, not an estimate: the choice
    /// keeps the same points. Under TimeBased at 10 Hz a pair spans 428 fixes on average and 62
    /// of them are measured; at 1 Hz, 19 of 44.
    struct FixBlocks {
        /// Fixes in a block.
        static let size = 8

        /// Each fix on the plane (node 0, `origin`, first).
        let points: [(x: Double, y: Double)]
        /// The turn at each fix (`TurnWatch`).
        let turns: [TurnWatch.Turn]
        /// The room a fix has: `tolerance`, and on a bend's inside `tolerance * turnShare`.
        let tolerance: Double
        private var centres: [(x: Double, y: Double)] = []
        private var radii: [Double] = []
        /// Whether any fix of the block turns: only such a fix can have a bend's smaller room.
        private var turning: [Bool] = []

        init(points: [(x: Double, y: Double)], turns: [TurnWatch.Turn], tolerance: Double) {
            self.points = points
            self.turns = turns
            self.tolerance = tolerance
            for start in stride(from: 0, to: points.count, by: Self.size) {
                let block = start..<min(points.count, start + Self.size)
                var (minX, maxX, minY, maxY) = (Double.infinity, -Double.infinity, Double.infinity, -Double.infinity)
                for k in block {
                    (minX, maxX) = (min(minX, points[k].x), max(maxX, points[k].x))
                    (minY, maxY) = (min(minY, points[k].y), max(maxY, points[k].y))
                }
                let centre = (x: (minX + maxX) / 2, y: (minY + maxY) / 2)
                var squared = 0.0
                for k in block {
                    let (dx, dy) = (points[k].x - centre.x, points[k].y - centre.y)
                    squared = max(squared, dx * dx + dy * dy)
                }
                centres.append(centre)
                // A hair more than the farthest fix, so that rounding never leaves one outside.
                radii.append(squared.squareRoot() * (1 + 1e-9) + 1e-9)
                turning.append(turns[block].contains { $0 != .straight })
            }
        }

        /// The largest distance from a fix in `range` to the segment from `a` to `b`, and the most
        /// any of them is beyond its room (negative when none is; -infinity for no fix).
        func reach(_ range: Range<Int>, from a: (x: Double, y: Double), to b: (x: Double, y: Double)) -> (worst: Double, over: Double) {
            var roomy = -1.0, tight = -1.0
            // A range of two blocks or fewer is measured whole: its circles would pass few fixes over.
            guard range.count > 2 * Self.size else {
                measure(range, from: a, to: b, &roomy, &tight)
                return figures(roomy, tight)
            }
            // The blocks the range reaches into; the first and the last may hold fixes outside it,
            // and their circles bound the fixes inside all the same.
            let first = range.lowerBound / Self.size, last = (range.upperBound - 1) / Self.size
            func fixes(_ block: Int) -> Range<Int> {
                max(range.lowerBound, block * Self.size)..<min(range.upperBound, (block + 1) * Self.size)
            }
            // The block whose circle reaches farthest from the segment is measured first, so that
            // the others are weighed against a large distance.
            return withUnsafeTemporaryAllocation(of: Double.self, capacity: last - first + 1) { reaches in
                var farthest = first
                for block in first...last {
                    reaches[block - first] = LocalPlane.squaredDistance(from: centres[block], toSegment: a, b).squareRoot() + radii[block]
                    if reaches[block - first] > reaches[farthest - first] { farthest = block }
                }
                measure(fixes(farthest), from: a, to: b, &roomy, &tight)
                var (worst, over) = figures(roomy, tight)
                for block in first...last where block != farthest {
                    let reach = reaches[block - first]
                    let room = turning[block] ? tolerance * MotionTriggers.turnShare : tolerance
                    guard reach > worst || reach - room > over else { continue }
                    measure(fixes(block), from: a, to: b, &roomy, &tight)
                    (worst, over) = figures(roomy, tight)
                }
                return (worst, over)
            }
        }

        /// Measures the fixes in `fixes` against the segment: the largest squared distance among
        /// those with the whole room (`roomy`) and among those on a bend's inside (`tight`).
        private func measure(_ fixes: Range<Int>, from a: (x: Double, y: Double), to b: (x: Double, y: Double),
                             _ roomy: inout Double, _ tight: inout Double) {
            for k in fixes {
                let squared = LocalPlane.squaredDistance(from: points[k], toSegment: a, b)
                if SpacedPath.insideOfABend(points[k], turns[k], a, b) { tight = max(tight, squared) } else { roomy = max(roomy, squared) }
            }
        }

        /// The largest distance and the most beyond its room, from the two largest squared
        /// distances: the square root and the room's subtraction keep their order, so taking them
        /// of the two largest gives what taking them of every fix would.
        private func figures(_ roomy: Double, _ tight: Double) -> (worst: Double, over: Double) {
            (max(0, max(roomy, tight)).squareRoot(),
             max(roomy < 0 ? -Double.infinity : roomy.squareRoot() - tolerance,
                 tight < 0 ? -Double.infinity : tight.squareRoot() - tolerance * MotionTriggers.turnShare))
        }
    }
}
