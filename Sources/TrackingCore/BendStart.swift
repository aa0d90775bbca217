import Glibc

/// Where a gentle bend began, as the deviation trigger's corner when the fix it reached last lies
/// past that start.
///
/// `TurnWatch` sees a bend only once the course has turned for a while (its `baseline`), so the
/// fixes at a bend's start are held as on a straight, with the whole tolerance on both sides. When
/// the cone then closes, the fix it reached last lies a few seconds into the bend, and the segment
/// to it passes on the bend's inside of those first fixes by up to the whole tolerance, where a
/// fix known to be in a bend gets `turnShare` of it. With the receiver's own offset that cut the
/// road by 12-14 m where a straight ran into a gentle bend: a highway's end (make_drive seeds 505
/// and 512 at 08:10:17), a 25° bend on a random road of our own at 1 Hz (14.0 m).
///
/// So the corner moves back to the last fix the cone reached whose segment passes on the bend's
/// inside of no fix held as on a straight by more than `insideShare` of the tolerance, when that
/// fix still leaves the stretch after it coverable without another corner at once. At a sharp
/// turn (`maxTurn` or more between the segment and the road after it) the fix reached last stays:
/// there it is the corner itself, and moving it back by a second at a 90° corner cost two points
/// more and kept nothing nearer the road (make_drive seed 7's first corner).
///
/// Measured on 53 drives (the suite's 17, and 21 make_drive seeds and 15 random roads it had not
/// seen, at 1, 5 and 10 Hz; `SimplificationFidelityTests` and `TrackerSpacingFidelityTests`):
/// within 12 m of the true path or 1.2x the every-fix floor without a rule on 47 (44 before),
/// under DistanceBased on 39 of 49 (36), under AccuracyBased on 29 (28), with the same points in
/// all. Without the two guards, every corner in a bend moved back at 0.7 of the tolerance kept
/// 5 % more points and up to 1.32x the fewest.
struct BendStart {
    /// The share of the tolerance a segment may pass on the bend's inside of a fix held as on a
    /// straight. At 0.95 a third as many drives came within the bound; at 0.85 without the
    /// guards, 2 % more points and up to 1.25x the fewest.
    static let insideShare = 0.9
    /// Degrees between the segment to the fix reached last and the road after it from which the
    /// turn is a corner, not a bend.
    static let maxTurn = 45.0

    /// The held fixes on the plane of the last kept fix, oldest first, and for each whether it was
    /// held as on a straight and whether a segment from the last kept fix reaches it.
    var points: [(x: Double, y: Double)]
    var straight: [Bool]
    var reachable: [Bool]
    /// The cone's tolerance (`max-deviation` times its share).
    var tolerance: Double

    /// The corner to keep instead of held fix `last`, the one the cone reached last, with the
    /// road going on towards `end`; nil to keep `last`.
    func vertex(insteadOf last: Int, towards end: (x: Double, y: Double)) -> Int? {
        guard turn(at: last, towards: end) < Self.maxTurn, !fits(last, towards: end) else { return nil }
        // The latest such fix: each check ends at the first fix it fails on.
        for candidate in stride(from: last - 1, through: 0, by: -1) where reachable[candidate] {
            if fits(candidate, towards: end), coversTheRest(from: candidate, towards: end) { return candidate }
        }
        return nil
    }

    /// The turn, in degrees, between the segment to `index` and the road from it towards `end`.
    private func turn(at index: Int, towards end: (x: Double, y: Double)) -> Double {
        let p = points[index]
        let change = DirectionCone.wrapped(atan2(end.y - p.y, end.x - p.x) - atan2(p.y, p.x))
        return abs(change) * 180 / .pi
    }

    /// Whether the segment to `index` passes on the bend's inside of no earlier fix held as on a
    /// straight by more than `insideShare` of the tolerance. The bend's inside is the side of
    /// the segment that `end` lies on: the road turned that way.
    private func fits(_ index: Int, towards end: (x: Double, y: Double)) -> Bool {
        let vertex = points[index]
        // `end` on the segment's left: the road turned left.
        let side = SpacedPath.side(of: end, from: (0, 0), to: vertex)
        let turn: TurnWatch.Turn = side > 0 ? .left : side < 0 ? .right : .straight
        let room = tolerance * Self.insideShare
        for k in 0..<index where straight[k] && SpacedPath.insideOfABend(points[k], turn, (0, 0), vertex) {
            if LocalPlane.distance(from: points[k], toSegment: (0, 0), vertex) > room { return false }
        }
        return true
    }

    /// Whether the segment from `index` towards `end` passes near every fix held after it, so that
    /// the corner moved back does not need another at once.
    private func coversTheRest(from index: Int, towards end: (x: Double, y: Double)) -> Bool {
        let vertex = points[index]
        for k in (index + 1)..<points.count {
            let room = straight[k] ? tolerance : tolerance * MotionTriggers.turnShare
            if LocalPlane.distance(from: points[k], toSegment: vertex, end) > room { return false }
        }
        return true
    }
}
