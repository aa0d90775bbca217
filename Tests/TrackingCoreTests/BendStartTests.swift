import Foundation
import Testing
@testable import TrackingCore

/// A straight into a gentle bend: the corner where the bend began, not a few seconds into it.
@Suite struct BendStartTests {
    /// Fixes 10 m apart east along y = 0 to x = 90, the one at x = 80 `offset` m south (the
    /// receiver's offset to the bend's outside), then x = 100, 6 m north: the bend to the left
    /// begins after x = 90.
    func held(offset: Double) -> BendStart {
        var points = (1...9).map { (x: Double($0) * 10, y: 0.0) }
        points[7].y = -offset
        points.append((x: 100, y: 6))
        return BendStart(points: points, straight: points.map { _ in true }, reachable: points.map { _ in true }, tolerance: 10)
    }

    @Test func aSegmentThatCutsTheBendsStartMovesBackToIt() {
        // The segment to x = 100 passes 9.8 m north of the fix 5 m south: on the bend's inside,
        // beyond 0.9 of the tolerance. The one to x = 90 passes it 5 m off.
        #expect(held(offset: 5).vertex(insteadOf: 9, towards: (x: 130, y: 20)) == 8)
    }

    @Test func aSegmentWithinTheBendsRoomStays() {
        // 8.8 m: within 0.9 of the tolerance.
        #expect(held(offset: 4).vertex(insteadOf: 9, towards: (x: 130, y: 20)) == nil)
    }

    @Test func aSharpCornerStaysWhereTheConeReachedLast() {
        // The road after x = 100 turns 87° from the segment: a corner, kept where it is.
        #expect(held(offset: 5).vertex(insteadOf: 9, towards: (x: 100, y: 40)) == nil)
    }

    @Test func noCornerMovesWhereTheRoadAfterItWouldNeedAnother() {
        // A fix held after x = 100 that the segment from x = 90 towards (125, 26) passes 18 m off.
        var bend = held(offset: 5)
        bend.points.append((x: 110, y: 40))
        bend.straight.append(true)
        bend.reachable.append(false)
        #expect(bend.vertex(insteadOf: 9, towards: (x: 125, y: 26)) == nil)
        bend.points[10] = (x: 110, y: 16)
        #expect(bend.vertex(insteadOf: 9, towards: (x: 125, y: 26)) == 8, "the same bend with that fix near the road")
    }

    /// East at 25 m/s for 40 s, then a left bend of 20° over ten seconds, the receiver's fixes
    /// from second 34 to 41 five metres to its outside; a heartbeat far off.
    @Test func theSegmentIntoAGentleBendPassesItsStartWithinTheBendsRoom() {
        let road = Track.driven(through: 80, speed: 25) { second in 90 - 20 * Double(min(max(second - 40, 0), 10)) / 10 }
        let fixes = road.enumerated().map { index, fix -> Location in
            guard (34...41).contains(index) else { return fix }
            return Location(time: fix.time, mode: fix.mode, latitude: fix.latitude - 5 / 111_195.08, longitude: fix.longitude,
                            course: fix.course, speed: fix.speed, horizontalAccuracy: fix.horizontalAccuracy)!
        }
        var configuration = FilterConfiguration()
        configuration.maxInterval = 600
        var triggers = MotionTriggers(configuration: configuration)
        let kept = fixes.flatMap { triggers.process($0) } + triggers.finish()
        let (_, farthest) = SimplificationFidelityTests.compliance(Array(fixes[30...42]), track: kept.map(\.location), tolerance: 10)
        // The corner the cone reached last, at second 44, left the fixes 9.9 m off.
        #expect(farthest <= 10 * BendStart.insideShare + 0.05, "the straight's last fixes \(farthest) m off the kept track")
        #expect(kept.map(\.trigger) == [.first, .deviation, .deviation, .final], "two corners for the bend, as before")
    }
}
