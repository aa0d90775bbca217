extension LocalPlane {
    /// A segment on the plane, the two ends a choice measures dozens of fixes against: the
    /// measures are `LocalPlane.squaredDistance(from:toSegment:_:)` and `SpacedPath.side(of:from:to:)`,
    /// whose arithmetic an optimized build works out once for the segment, not once a fix.
    struct Segment {
        let from: (x: Double, y: Double)
        let to: (x: Double, y: Double)

        @inline(__always)
        init(_ a: (x: Double, y: Double), _ b: (x: Double, y: Double)) {
            (from, to) = (a, b)
        }

        /// The square of the distance from `p` to the segment's nearest point.
        @inline(__always)
        func squaredDistance(from p: (x: Double, y: Double)) -> Double {
            LocalPlane.squaredDistance(from: p, toSegment: from, to)
        }

        /// Which side of the segment's line `p` lies on: positive on its left, negative on its
        /// right, 0 on it.
        @inline(__always)
        func side(of p: (x: Double, y: Double)) -> Double {
            SpacedPath.side(of: p, from: from, to: to)
        }
    }
}
