/// The best a tracker's filtering lets a stored track do: the smallest largest-distance from the
/// true path over every choice of the receiver's fixes that the tracker would store one after
/// another (`TrackerFiltering.stores`: DistanceBased 30 m from the one before, AccuracyBased both
/// accuracies), whatever the number of points, from the first fix to one at or after `end`
/// (the last fix when not given; the last point of the track being judged, for the same span).
///
/// It tells a target that no track can meet from a filter that misses it (issue 14's 12 m under
/// the distance rules; TimeBased is judged against its own best the same way). Each true-path
/// point is measured against the segment of its time (`deviation(of:path:)`, stricter than
/// `TrackFidelity`, which takes the nearest segment of all). A bottleneck shortest path over the
/// fixes: a segment's cost is its farthest true-path point, a track's its worst segment. Segments
/// span at most `window` seconds, so a drive of n fixes at 1 Hz costs about n x window x window;
/// for tests, not the daemon.
public enum BestStoredTrack {
    /// The least, over stored tracks through `fixes` (in time order), of the largest distance in
    /// metres from `path` to the track; infinity when the rule lets no track reach `end`.
    public static func deviation(_ fixes: [Location], path: [TrackFidelity.PathPoint], filtering: TrackerFiltering,
                                 reaching end: FixTime? = nil, window: Double = 300) -> Double {
        guard let first = fixes.first, fixes.count > 1 else { return 0 }
        let plane = LocalPlane(latitude: first.latitude, longitude: first.longitude)
        let points = fixes.map { plane.project($0) }
        let truth = path.map { plane.project(latitude: $0.latitude, longitude: $0.longitude) }
        let truthTimes = path.map(\.time)
        var best = [Double](repeating: .infinity, count: fixes.count)
        best[0] = 0
        var earliest = 0
        for j in 1..<fixes.count {
            while fixes[earliest].time.seconds(to: fixes[j].time) > window { earliest += 1 }
            for i in earliest..<j where best[i] < best[j] && filtering.stores(fixes[j], after: fixes[i]) {
                let cost = max(best[i], farthest(truth, truthTimes, from: fixes[i].time, to: fixes[j].time, points[i], points[j], atLeast: best[j]))
                best[j] = min(best[j], cost)
            }
        }
        let reach = end ?? fixes[fixes.count - 1].time
        return zip(fixes, best).filter { $0.0.time >= reach }.map(\.1).min() ?? .infinity
    }

    /// The largest distance from `path` to `track` (in time order), each path point within the
    /// track's span measured against the segment of its time: what `deviation` minimizes.
    public static func deviation(of track: [Location], path: [TrackFidelity.PathPoint]) -> Double {
        guard let first = track.first else { return 0 }
        let plane = LocalPlane(latitude: first.latitude, longitude: first.longitude)
        let truth = path.map { plane.project(latitude: $0.latitude, longitude: $0.longitude) }
        let times = path.map(\.time)
        return zip(track, track.dropFirst()).map { a, b in
            farthest(truth, times, from: a.time, to: b.time, plane.project(a), plane.project(b), atLeast: .infinity)
        }.max() ?? 0
    }

    /// The farthest path point with a time in `from...to` from the segment `a`–`b`, or `atLeast`
    /// as soon as one is that far (the segment cannot improve on it).
    static func farthest(_ truth: [(x: Double, y: Double)], _ times: [FixTime], from: FixTime, to: FixTime,
                         _ a: (x: Double, y: Double), _ b: (x: Double, y: Double), atLeast limit: Double) -> Double {
        var low = 0, high = times.count
        while low < high {
            let middle = (low + high) / 2
            if times[middle] < from { low = middle + 1 } else { high = middle }
        }
        var farthest = 0.0
        var k = low
        while k < times.count, times[k] <= to {
            farthest = max(farthest, LocalPlane.distance(from: truth[k], toSegment: a, b))
            if farthest >= limit { return limit }
            k += 1
        }
        return farthest
    }
}
