import Glibc

/// The directions from an anchor point along which a segment passes within `tolerance` of every
/// point added so far: the intersection of the sectors that each point's tolerance disc subtends
/// at the anchor (sector intersection, Williams 1978; the "sleeve" of Zhao and Saalfeld).
///
/// A point at distance `d > tolerance` allows the directions within `asin(tolerance / d)` of its
/// own; a point within `tolerance` of the anchor allows every direction. A candidate end point
/// admitted by the cone, and no nearer to the anchor than the farthest point added, has every
/// added point within `tolerance` of the segment to it: within the ray by the cone, and its
/// projection inside the segment by the distance. Constant time and memory a point, which is
/// what lets the filter judge each fix against all those since its last kept one.
public struct DirectionCone: Sendable {
    public let tolerance: Double
    /// Direction of the first point that constrained the cone; the bounds are relative to it.
    private var centre: Double?
    private var low = -Double.pi
    private var high = Double.pi
    /// No direction passes near every point: no segment from the anchor can cover them.
    public private(set) var isEmpty = false
    /// Distance of the farthest point added.
    public private(set) var farthest = 0.0

    public init(tolerance: Double) {
        self.tolerance = tolerance
    }

    /// Adds a point (metres east and north of the anchor) that the segment must pass near.
    public mutating func add(_ point: (x: Double, y: Double)) {
        add(distance: (point.x * point.x + point.y * point.y).squareRoot(), direction: atan2(point.y, point.x))
    }

    /// Whether the segment to `point` passes near every point added so far (`admits`), then adds
    /// it: the filter's step for each fix, its distance and direction computed once. `left` and
    /// `right` (at most `tolerance`) narrow the room on one side: how far the segment may pass
    /// with the point on its left, or on its right.
    public mutating func admitsThenAdds(_ point: (x: Double, y: Double), left: Double? = nil, right: Double? = nil) -> Bool {
        let distance = (point.x * point.x + point.y * point.y).squareRoot(), direction = atan2(point.y, point.x)
        let admitted = distance >= farthest && contains(direction: direction)
        add(distance: distance, direction: direction, left: min(left ?? tolerance, tolerance), right: min(right ?? tolerance, tolerance))
        return admitted
    }

    /// Whether the segment from the anchor to `point` passes within `tolerance` of every point
    /// added. False is not proof of the opposite for a point nearer than the farthest one (the
    /// segment may still pass near); `FewestPoints` checks those exactly.
    public func admits(_ point: (x: Double, y: Double)) -> Bool {
        (point.x * point.x + point.y * point.y).squareRoot() >= farthest && contains(direction: point)
    }

    /// Whether `point`'s direction lies in the cone, whatever its distance.
    public func contains(direction point: (x: Double, y: Double)) -> Bool {
        contains(direction: atan2(point.y, point.x))
    }

    /// A segment direction clockwise of the point's passes with the point on its left, so `left`
    /// bounds how far clockwise it may turn; `right` the other way.
    private mutating func add(distance: Double, direction: Double, left: Double? = nil, right: Double? = nil) {
        farthest = max(farthest, distance)
        let left = left ?? tolerance, right = right ?? tolerance
        guard distance > min(left, right), !isEmpty else { return }
        let clockwise = distance > left ? (left / distance).clampedAsin : .pi
        let counterclockwise = distance > right ? (right / distance).clampedAsin : .pi
        guard let centre else {
            self.centre = direction
            (low, high) = (-clockwise, counterclockwise)
            return
        }
        let relative = Self.wrapped(direction - centre)
        low = max(low, relative - clockwise)
        high = min(high, relative + counterclockwise)
        if low > high { isEmpty = true }
    }

    private func contains(direction: Double) -> Bool {
        guard !isEmpty else { return false }
        guard let centre else { return true }
        let relative = Self.wrapped(direction - centre)
        return relative >= low && relative <= high
    }

    /// An angle in (-π, π].
    static func wrapped(_ angle: Double) -> Double {
        var a = angle
        while a > .pi { a -= 2 * .pi }
        while a <= -.pi { a += 2 * .pi }
        return a
    }
}

private extension Double {
    /// asin of a ratio that rounding may have put a hair above 1.
    var clampedAsin: Double { asin(Swift.min(1, Swift.max(-1, self))) }
}
