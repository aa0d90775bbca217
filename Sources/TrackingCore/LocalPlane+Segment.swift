extension LocalPlane {
    /// A segment on the plane, with what measuring a point against it needs worked out once: a
    /// choice of points measures each of its segments against dozens of fixes.
    public struct Segment: Sendable {
        public let from: (x: Double, y: Double)
        /// From `from` to the segment's other end.
        public let dx: Double, dy: Double
        /// The segment's length squared.
        public let lengthSquared: Double

        @inline(__always)
        public init(_ a: (x: Double, y: Double), _ b: (x: Double, y: Double)) {
            from = a
            dx = b.x - a.x
            dy = b.y - a.y
            lengthSquared = dx * dx + dy * dy
        }

        /// The square of the distance from `p` to the segment's nearest point.
        @inline(__always)
        public func squaredDistance(from p: (x: Double, y: Double)) -> Double {
            var t = 0.0
            if lengthSquared > 0 {
                t = max(0, min(1, ((p.x - from.x) * dx + (p.y - from.y) * dy) / lengthSquared))
            }
            let cx = from.x + t * dx - p.x, cy = from.y + t * dy - p.y
            return cx * cx + cy * cy
        }

        /// Which side of the segment's line `p` lies on: positive on its left, negative on its
        /// right, 0 on it (east and north make a right-handed plane).
        @inline(__always)
        public func side(of p: (x: Double, y: Double)) -> Double {
            dx * (p.y - from.y) - dy * (p.x - from.x)
        }
    }
}
