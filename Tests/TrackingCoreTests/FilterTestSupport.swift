import Foundation
import TrackingCore

/// Hand-built fixes for filter tests: a start time, and positions as metres east/north of a point.
struct Track {
    static let start = FixTime(iso8601: "2026-11-30T08:00:00Z")!
    static let origin = (latitude: 52.5, longitude: 13.4)
    static let synced = ClockReading(now: FixTime(iso8601: "2026-11-30T09:00:00Z")!, synchronized: true)

    static func fix(
        _ second: Double, east: Double = 0, north: Double = 0, speed: Double? = 10, course: Double? = 90,
        accuracy: Double? = 5, mode: FixMode = .threeD
    ) -> Location {
        let latitude = origin.latitude + north / 111_195.08
        let longitude = origin.longitude + east / (111_195.08 * 0.6087614290087207)
        return Location(
            time: start.adding(seconds: second), mode: mode, latitude: latitude, longitude: longitude,
            course: course, speed: speed, horizontalAccuracy: accuracy)!
    }

    /// A fix a second at `speed` from second 0 through `seconds`, each on the heading of its
    /// second, the next that far along it.
    static func driven(through seconds: Int, speed: Double, heading: (Int) -> Double) -> [Location] {
        driven(through: seconds, speed: { _ in speed }, heading: heading)
    }

    /// The same with the speed of each second (0 where the vehicle stands).
    static func driven(through seconds: Int, speed: (Int) -> Double, heading: (Int) -> Double) -> [Location] {
        var fixes: [Location] = []
        var (east, north) = (0.0, 0.0)
        for second in 0...seconds {
            let (course, metres) = (heading(second), speed(second))
            fixes.append(fix(Double(second), east: east, north: north, speed: metres, course: course))
            east += metres * sin(course * .pi / 180)
            north += metres * cos(course * .pi / 180)
        }
        return fixes
    }
}

/// Runs CPU-bound work (a drive replayed through the filter, an optimum computed) on a thread of
/// its own: a synchronous test would hold one of Swift's two cooperative threads for seconds, and
/// the suite's async tests, which time intervals and deadlines, would starve meanwhile.
func offThePool<T: Sendable>(_ work: @escaping @Sendable () throws -> T) async throws -> T {
    try await withCheckedThrowingContinuation { continuation in
        Thread { continuation.resume(with: Result { try work() }) }.start()
    }
}

extension QualityGate {
    /// This fix's own rejection; a fix the gate holds is not rejected (yet).
    mutating func check(_ location: Location, clock: ClockReading) -> RejectionReason? {
        judge(location, clock: clock).rejection
    }

    /// The fixes that pass when `location` is judged: held ones released, then it, unless the
    /// gate holds or rejects it.
    mutating func passing(_ location: Location, clock: ClockReading) -> [Location] {
        let verdict = judge(location, clock: clock)
        return verdict.released + (verdict.passes ? [location] : [])
    }
}
