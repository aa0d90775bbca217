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

        /// The room a fix has against a segment (see `tolerance`).
        private enum Room: UInt8 {
            case whole
            /// In a right turn: `turnShare` where the segment passes with the fix on its left.
            case rightBend
            /// In a left turn: `turnShare` where the segment passes with the fix on its right.
            case leftBend
            /// The first fix after a gap: `gapShare` on both sides.
            case afterGap
            /// As `rightBend` and `leftBend`, where the fix's offset from the road is read:
            /// `readTurnShare` (its far side from the road has its own room, `FarSide`).
            case rightBendRead
            case leftBendRead

            /// The share of the tolerance on the fix's tighter side.
            var least: Double {
                switch self {
                case .whole: 1
                case .rightBend, .leftBend: MotionTriggers.turnShare
                case .rightBendRead, .leftBendRead: MotionTriggers.readTurnShare
                case .afterGap: MotionTriggers.gapShare
                }
            }
        }

        /// A fix on the plane, with its room; where it is known to stand off the road, that offset
        /// and the room on its far side from the road (`ReceiverOffset`).
        private struct Fix {
            var point: (x: Double, y: Double)
            var room: Room
            var far: FarSide?
        }

        /// A block's chord, from its first fix to its last, and how far its farthest fix is from
        /// that chord: no fix of the block is farther from a segment than the chord's farther end
        /// plus that (the distance to a segment is convex, so along the chord it is largest at an
        /// end). A circle about the block bounded it too, but at 1 Hz a block is 100 m of road and
        /// its circle as wide; the chord's bound is only as wide as the road bends in the block.
        private struct Block {
            var from: (x: Double, y: Double)
            var to: (x: Double, y: Double)
            var radius: Double
            /// The least room any fix of the block has.
            var room: Double
        }

        /// Each fix (node 0, `origin`, first), and each block, side by side in memory: a choice
        /// reads them for every pair it weighs, and read from three arrays of the fixes and three
        /// of the blocks, each read checked, they cost more than the measuring itself.
        private let fixes: [Fix]
        private let blocks: [Block]
        /// The room a fix has: `tolerance`, on a bend's inside `tolerance * turnShare` (where its
        /// offset is read, `readTurnShare`), and on both sides of the first fix after a gap
        /// `tolerance * gapShare`, as the deviation trigger has.
        let tolerance: Double

        /// `points` on the plane, with the turn at each (`TurnWatch`) and whether each is the
        /// first after a gap (`MotionTriggers.gapSeconds`).
        /// With `farSides` (one for each point, or none), where fixes stand off the road.
        init(points: [(x: Double, y: Double)], turns: [TurnWatch.Turn], afterGap: [Bool], tolerance: Double, farSides: [FarSide?] = []) {
            self.tolerance = tolerance
            let fixes = points.indices.map { k in
                let far = afterGap[k] || farSides.isEmpty ? nil : farSides[k]
                return Fix(point: points[k], room: afterGap[k] ? .afterGap
                            : turns[k] == .right ? (far == nil ? .rightBend : .rightBendRead)
                            : turns[k] == .left ? (far == nil ? .leftBend : .leftBendRead) : .whole,
                           far: far)
            }
            self.fixes = fixes
            var blocks: [Block] = []
            blocks.reserveCapacity((points.count + Self.size - 1) / Self.size)
            for start in stride(from: 0, to: points.count, by: Self.size) {
                let block = start..<min(points.count, start + Self.size)
                let chord = (from: points[block.lowerBound], to: points[block.upperBound - 1])
                var squared = 0.0
                for k in block { squared = max(squared, LocalPlane.squaredDistance(from: points[k], toSegment: chord.from, chord.to)) }
                blocks.append(Block(from: chord.from, to: chord.to,
                                    // A hair more than the farthest fix, so that rounding never leaves one outside.
                                    radius: squared.squareRoot() * (1 + 1e-9) + 1e-9,
                                    room: min(tolerance * (fixes[block].map(\.room.least).min() ?? 1),
                                              fixes[block].compactMap { $0.far?.room }.min() ?? .infinity)))
            }
            self.blocks = blocks
        }

        /// The largest distance from a fix in `range` to the segment from `a` to `b`, and the most
        /// any of them is beyond its room (negative when none is; -infinity for no fix); nil as
        /// soon as a fix is found farther than `within`.
        func reach(_ range: Range<Int>, from a: (x: Double, y: Double), to b: (x: Double, y: Double),
                   within: Double = .infinity) -> (worst: Double, over: Double)? {
            return fixes.withUnsafeBufferPointer { fixes in
                var largest = Largest()
                // A range of two blocks or fewer is measured whole: its bounds would pass few fixes over.
                guard range.count > 2 * Self.size else {
                    Self.measure(fixes, range, from: a, to: b, &largest)
                    let found = figures(largest)
                    return found.worst > within ? nil : found
                }
                return blocks.withUnsafeBufferPointer { blocks in
                    // The blocks the range reaches into; the first and the last may hold fixes
                    // outside it, and their bounds hold the fixes inside all the same.
                    let first = range.lowerBound / Self.size, last = (range.upperBound - 1) / Self.size
                    func inside(_ block: Int) -> Range<Int> {
                        max(range.lowerBound, block * Self.size)..<min(range.upperBound, (block + 1) * Self.size)
                    }
                    // The block whose bound reaches farthest from the segment is measured first, so
                    // that the others are weighed against a large distance. A block's chord ends are
                    // two of its fixes: one of the range's beyond `within` ends the measuring.
                    return withUnsafeTemporaryAllocation(of: Double.self, capacity: last - first + 1) { reaches -> (worst: Double, over: Double)? in
                        var farthest = first
                        for block in first...last {
                            let from = LocalPlane.squaredDistance(from: blocks[block].from, toSegment: a, b)
                            let to = LocalPlane.squaredDistance(from: blocks[block].to, toSegment: a, b)
                            if block > first, block < last, max(from, to).squareRoot() > within { return nil }
                            reaches[block - first] = max(from, to).squareRoot() * (1 + 1e-9) + blocks[block].radius
                            if reaches[block - first] > reaches[farthest - first] { farthest = block }
                        }
                        Self.measure(fixes, inside(farthest), from: a, to: b, &largest)
                        var (worst, over) = figures(largest)
                        for block in first...last where block != farthest {
                            guard worst <= within else { return nil }
                            let reach = reaches[block - first]
                            guard reach > worst || reach - blocks[block].room > over else { continue }
                            Self.measure(fixes, inside(block), from: a, to: b, &largest)
                            (worst, over) = figures(largest)
                        }
                        return worst > within ? nil : (worst, over)
                    }
                }
            }
        }

        /// The largest squared distances measured, by the room of the fix: the whole, a bend's
        /// inside, after a gap, a bend's inside where the offset is read (-1: none).
        private struct Largest {
            var roomy = -1.0, bend = -1.0, gap = -1.0, bendRead = -1.0
            /// The most a fix passed on its far side from the road is beyond that side's room.
            var far = -Double.infinity
        }

        /// Measures the fixes in `range` against the segment from `a` to `b`, each by its room.
        @inline(__always)
        private static func measure(_ fixes: UnsafeBufferPointer<Fix>, _ range: Range<Int>,
                                    from a: (x: Double, y: Double), to b: (x: Double, y: Double),
                                    _ largest: inout Largest) {
            for k in range {
                let fix = fixes[k]
                let squared = LocalPlane.squaredDistance(from: fix.point, toSegment: a, b)
                // Which side of the segment the fix lies on, where its room or its offset asks;
                // worked out once for both.
                let side = fix.room == .whole && fix.far == nil || fix.room == .afterGap ? 0 : SpacedPath.side(of: fix.point, from: a, to: b)
                switch fix.room {
                case .whole: largest.roomy = max(largest.roomy, squared)
                case .afterGap: largest.gap = max(largest.gap, squared)
                // On the bend's inside: the fix on the segment's left in a right turn.
                case .rightBend where side > 0, .leftBend where side < 0:
                    largest.bend = max(largest.bend, squared)
                case .rightBendRead where side > 0, .leftBendRead where side < 0:
                    largest.bendRead = max(largest.bendRead, squared)
                case .rightBend, .leftBend, .rightBendRead, .leftBendRead: largest.roomy = max(largest.roomy, squared)
                }
                // The segment on the side the fix's offset points to: away from the road.
                if let far = fix.far, side * (far.offset.x * (b.y - a.y) - far.offset.y * (b.x - a.x)) > 0 {
                    largest.far = max(largest.far, squared.squareRoot() - far.room)
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
            return (max(0, largest.roomy, largest.bend, largest.gap, largest.bendRead).squareRoot(),
                    max(over(largest.roomy, 1), over(largest.bend, MotionTriggers.turnShare), over(largest.gap, MotionTriggers.gapShare),
                        over(largest.bendRead, MotionTriggers.readTurnShare), largest.far))
        }
    }
}
