import Testing
import TrackingCore

/// The distance of the true path from a kept track, point by point.
@Suite struct TrackFidelityTests {
    /// A point of the true path `east` and `north` metres from the tests' origin at `second`.
    static func pathPoint(_ second: Double, east: Double, north: Double) -> TrackFidelity.PathPoint {
        let fix = Track.fix(second, east: east, north: north)
        return .init(time: fix.time, latitude: fix.latitude, longitude: fix.longitude)
    }

    /// East 1,000 m in 100 s, then back west and north to 100 m north of the start by 200 s. At
    /// 150 s the vehicle is 5 m from the way out, which it left 50 s before, and 45 m from the
    /// segment it is on.
    @Test func aPointIsMeasuredAgainstTheSegmentsNearItsTimeWhenAsked() {
        let kept = [Track.fix(0), Track.fix(100, east: 1000), Track.fix(200, north: 100)]
        let path = [Self.pathPoint(0, east: 0, north: 0), Self.pathPoint(150, east: 500, north: 5), Self.pathPoint(200, east: 0, north: 100)]
        let nearest = TrackFidelity.distances(kept: kept, path: path)
        #expect(nearest.count == 3)
        #expect(abs(nearest[1].distance - 5) < 0.1, "the way out is nearest: \(nearest[1].distance) m")
        let nearInTime = TrackFidelity.distances(kept: kept, path: path, within: 30)
        #expect(abs(nearInTime[1].distance - 44.8) < 0.2, "the segment of its time: \(nearInTime[1].distance) m")
        #expect(nearInTime[0].distance < 0.01 && nearInTime[2].distance < 0.01, "the kept points themselves")
        #expect(TrackFidelity(kept: kept, path: path).maxDeviation == nearest.map(\.distance).max())
    }

    @Test func oneKeptPointIsMeasuredAsAPoint() {
        let distances = TrackFidelity.distances(kept: [Track.fix(10, east: 30)], path: [Self.pathPoint(10, east: 0, north: 40)], within: 5)
        #expect(distances.count == 1 && abs(distances[0].distance - 50) < 0.1)
    }
}
