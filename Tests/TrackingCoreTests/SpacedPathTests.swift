import Testing
@testable import TrackingCore

/// The spacing's choice among the fixes since the last kept point, under a rule that forces one
/// stretch off the fixes.
@Suite struct SpacedPathTests {
    /// East at 5 m a second from the last kept point to a corner at 100 m, then north to 100 m;
    /// one fix 20 m off the road 10 m out, within DistanceBased's 30 m of the origin: no track can
    /// pass nearer it than 20 m.
    static func fixes() -> [Location] {
        (1...40).map { step in
            let (east, north) = step <= 20 ? (Double(step) * 5, step == 2 ? -20.0 : 0) : (100, Double(step - 20) * 5)
            return Track.fix(Double(step), east: east, north: north)
        }
    }

    @Test func aStretchTheRuleForcesOffTheFixesDoesNotLetTheRestGoAsFar() throws {
        let fixes = Self.fixes()
        let origin = Track.fix(0)
        let chosen = SpacedPath(origin: origin, fixes: fixes, filtering: .distanceBased, tolerance: 10).points(keepingEnd: false)
        // The first segment must pass 20 m from the fix at 10 m; that must not let the corner be
        // cut by as much (a point 20 m before it would do for the fewest points within 20 m).
        let track = [origin] + chosen + [fixes[fixes.count - 1]]
        for (a, b) in zip(track, track.dropFirst()) { #expect(TrackerFiltering.distanceBased.stores(b, after: a)) }
        let plane = LocalPlane(latitude: origin.latitude, longitude: origin.longitude)
        let beyondTheForcedStretch = fixes.filter { plane.project($0).x >= 40 }
        let (_, farthest) = SimplificationFidelityTests.compliance(beyondTheForcedStretch, track: track, tolerance: 10)
        #expect(farthest <= 10, "the corner within the tolerance: \(farthest) m with \(chosen.count) points")
        #expect(chosen.count == 1, "one point at the corner is enough")
        let corner = try #require(chosen.first)
        #expect(plane.project(corner).x >= 90)
    }
}
