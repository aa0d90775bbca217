/// How faithfully a thinned track follows the true path: the measure the filter is tuned against.
///
/// The deviation is the largest distance from any point of the true path to the polyline through
/// the kept points (what a map shows), measured over the part of the path the kept points span.
public struct TrackFidelity: Sendable {
    /// One point of the true (or reference) path.
    public struct PathPoint: Sendable {
        public var time: FixTime
        public var latitude: Double
        public var longitude: Double
        public init(time: FixTime, latitude: Double, longitude: Double) {
            self.time = time
            self.latitude = latitude
            self.longitude = longitude
        }
    }

    /// Points kept.
    public var pointCount: Int
    /// Length of the true path in kilometres.
    public var pathKilometres: Double
    /// Largest distance in metres from the true path to the kept polyline.
    public var maxDeviation: Double
    /// The time of the path point where the largest deviation occurs.
    public var worstTime: FixTime?

    public var pointsPerKilometre: Double { pathKilometres > 0 ? Double(pointCount) / pathKilometres : 0 }

    /// Measures `kept` (in time order) against `path` (in time order).
    public init(kept: [Location], path: [PathPoint]) {
        pointCount = kept.count
        var length = 0.0
        for (a, b) in zip(path, path.dropFirst()) {
            length += Geodesy.distance((a.latitude, a.longitude), (b.latitude, b.longitude))
        }
        pathKilometres = length / 1000
        maxDeviation = 0
        worstTime = nil
        for (point, distance) in Self.distances(kept: kept, path: path) where distance > maxDeviation {
            maxDeviation = distance
            worstTime = point.time
        }
    }

    /// Each point of `path` in the time the kept points span, with its distance from the polyline
    /// through them (the nearest segment's): how much of a drive a map shows farther than a bound
    /// from the road, not only the worst place.
    public static func distances(kept: [Location], path: [PathPoint]) -> [(point: PathPoint, distance: Double)] {
        guard let first = kept.first, let last = kept.last else { return [] }
        let plane = LocalPlane(latitude: first.latitude, longitude: first.longitude)
        let polyline = kept.map { plane.project($0) }
        return path.filter { $0.time >= first.time && $0.time <= last.time }.map { point in
            let p = plane.project(latitude: point.latitude, longitude: point.longitude)
            var best = Double.infinity
            if polyline.count == 1 {
                best = LocalPlane.distance(from: p, toSegment: polyline[0], polyline[0])
            }
            for (a, b) in zip(polyline, polyline.dropFirst()) {
                best = min(best, LocalPlane.distance(from: p, toSegment: a, b))
            }
            return (point, best)
        }
    }
}
