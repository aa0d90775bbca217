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
    /// from the road, not only the worst place. With `within`, only the segments that come within
    /// that many seconds of the point's time are measured: hours of a track through every fix
    /// (100,000 segments at 10 Hz) measured against each point of the path took minutes.
    public static func distances(kept: [Location], path: [PathPoint], within seconds: Double? = nil) -> [(point: PathPoint, distance: Double)] {
        guard let first = kept.first, let last = kept.last else { return [] }
        let plane = LocalPlane(latitude: first.latitude, longitude: first.longitude)
        let polyline = kept.map { plane.project($0) }
        let segments = max(1, polyline.count - 1)
        var low = 0
        return path.filter { $0.time >= first.time && $0.time <= last.time }.map { point in
            let p = plane.project(latitude: point.latitude, longitude: point.longitude)
            // The segments measured: all, or those whose time span comes within `seconds` of the
            // point's (the path in time order, so the first of them only moves on).
            var range = 0..<segments
            if let seconds {
                while low + 1 < segments, kept[low + 1].time.seconds(to: point.time) > seconds { low += 1 }
                var high = low
                while high + 1 < segments, point.time.seconds(to: kept[high + 1].time) <= seconds { high += 1 }
                range = low..<(high + 1)
            }
            var best = Double.infinity
            for k in range {
                best = min(best, LocalPlane.distance(from: p, toSegment: polyline[k], polyline[min(k + 1, polyline.count - 1)]))
            }
            return (point, best)
        }
    }
}
