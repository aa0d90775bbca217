import Foundation
import TestSupport
import Testing
@testable import TrackingCore

@Suite struct FewestPointsTests {
    typealias Point = (x: Double, y: Double)

    /// Imai–Iri by brute force: every edge checked against every point between its ends.
    static func bruteForce(_ points: [Point], tolerance: Double) -> Int {
        guard points.count > 2 else { return points.count }
        var fewest = [Int](repeating: .max, count: points.count)
        fewest[0] = 1
        for j in 1..<points.count {
            for i in 0..<j where fewest[i] != .max && FewestPoints.covers(points, from: i, to: j, tolerance: tolerance) {
                fewest[j] = min(fewest[j], fewest[i] + 1)
            }
        }
        return fewest[points.count - 1]
    }

    static func uniform(_ random: inout SplitMix) -> Double { Double(random.next() >> 11) / Double(1 << 53) }

    /// A vehicle-like walk: steps of 3–15 m, the heading turning a little or, now and then, a lot.
    static func walk(_ random: inout SplitMix, count: Int) -> [Point] {
        var (x, y, heading) = (0.0, 0.0, 0.0)
        var points: [Point] = [(0, 0)]
        for _ in 1..<count {
            let turn = uniform(&random) < 0.15 ? (uniform(&random) - 0.5) * 3.5 : (uniform(&random) - 0.5) * 0.3
            heading += turn
            let step = 3 + 12 * uniform(&random)
            x += step * cos(heading) + (uniform(&random) - 0.5) * 4
            y += step * sin(heading) + (uniform(&random) - 0.5) * 4
            points.append((x, y))
        }
        return points
    }

    @Test func aStraightRoadNeedsItsEndsAndACornerOneMore() {
        let straight = (0..<50).map { Point(Double($0) * 10, $0 % 2 == 0 ? 2 : -2) }
        #expect(FewestPoints.count(straight, tolerance: 5) == 2)
        #expect(FewestPoints.count(straight, tolerance: 1.9) == 50, "every zig is 4 m from the next: none can be skipped")
        let corner = (0..<20).map { Point(Double($0) * 10, 0) } + (1..<20).map { Point(190, Double($0) * 10) }
        #expect(FewestPoints.count(corner, tolerance: 5) == 3)
        // There and back: the return leg lies on the outward one, but the segment from the start
        // to the end cannot pass the turning point, so the turn is kept.
        let uTurn = (0..<10).map { Point(Double($0) * 10, 0) } + (0..<9).reversed().map { Point(Double($0) * 10, 2) }
        #expect(FewestPoints.count(uTurn, tolerance: 5) == 3)
    }

    @Test func aHeartbeatBoundsTheTimeBetweenPoints() {
        let straight = (0..<130).map { Point(Double($0) * 10, 0) }
        let times = (0..<130).map(Double.init)
        #expect(FewestPoints.count(straight, times: times, tolerance: 5) == 2)
        #expect(FewestPoints.count(straight, times: times, tolerance: 5, maxInterval: 60) == 4, "0, 60, 120 and 129 s")
        let chosen = FewestPoints.indices(straight, times: times, tolerance: 5, maxInterval: 60)
        #expect(chosen.first == 0 && chosen.last == 129 && chosen.count == 4, "\(chosen)")
        for (a, b) in zip(chosen, chosen.dropFirst()) { #expect(times[b] - times[a] <= 60, "\(chosen)") }
    }

    /// Fixes 91 s apart (a long tunnel) inside a stretch, with a 60 s heartbeat: no segment may
    /// span more than 60 s, but the two fixes either side of the gap have nothing else to join
    /// them. Counted as a way through that no track has, the stretch's count was Int.max.
    @Test func aGapLongerThanTheHeartbeatIsJoinedAllTheSame() {
        let road = (0..<20).map { Point(Double($0) * 10, 0) }
        let times = (0..<20).map { Double($0 < 10 ? $0 : $0 + 90) }
        #expect(FewestPoints.indices(road, times: times, tolerance: 5, maxInterval: 60) == [0, 9, 10, 19])
        #expect(FewestPoints.indices(road, times: times, tolerance: 5) == [0, 19])
    }

    /// The points chosen are as many as the count, run from the first point to the last, and
    /// each segment between them passes within the tolerance of every point it spans.
    @Test func theChosenPointsAreAsFewAsTheCountAndCoverEveryPoint() {
        var random = SplitMix(seed: 16)
        for round in 0..<300 {
            let points = Self.walk(&random, count: 5 + round % 60)
            let tolerance = [2.0, 5.0, 10.0, 25.0][round % 4]
            let chosen = FewestPoints.indices(points, tolerance: tolerance)
            #expect(chosen.count == Self.bruteForce(points, tolerance: tolerance), "round \(round)")
            #expect(chosen.first == 0 && chosen.last == points.count - 1, "round \(round): \(chosen)")
            for (a, b) in zip(chosen, chosen.dropFirst()) {
                #expect(a < b && FewestPoints.covers(points, from: a, to: b, tolerance: tolerance + 1e-9), "round \(round): \(a) to \(b)")
            }
        }
    }

    @Test func matchesBruteForceOnRandomWalks() {
        var random = SplitMix(seed: 14)
        for round in 0..<300 {
            let points = Self.walk(&random, count: 5 + round % 60)
            let tolerance = [2.0, 5.0, 10.0, 25.0][round % 4]
            #expect(FewestPoints.count(points, tolerance: tolerance) == Self.bruteForce(points, tolerance: tolerance),
                    "round \(round), \(points.count) points, tolerance \(tolerance)")
        }
    }

    @Test func theConeNeverAdmitsASegmentThatMissesAPoint() {
        var random = SplitMix(seed: 15)
        var admitted = 0
        for round in 0..<2000 {
            let points = Self.walk(&random, count: 3 + round % 25)
            var cone = DirectionCone(tolerance: 8)
            for k in 1..<(points.count - 1) { cone.add(points[k]) }
            if cone.admits(points[points.count - 1]) {
                admitted += 1
                #expect(FewestPoints.covers(points, from: 0, to: points.count - 1, tolerance: 8 + 1e-9), "round \(round)")
            }
        }
        #expect(admitted > 200, "the check is exercised")
    }

    @Test func aDriveCountsItsMovingStretchesAndOnePointPerStop() {
        let start = FixTime(iso8601: "2026-12-01T08:00:00Z")!
        func fix(_ n: Int, _ x: Double, _ y: Double, speed: Double) -> Location {
            let latitude = 52.5 + y / 111_195.08
            let longitude = 13.4 + x / (111_195.08 * cos(52.5 * .pi / 180))
            return Location(time: start.adding(seconds: Double(n)), mode: .threeD, latitude: latitude, longitude: longitude, speed: speed)!
        }
        // Parked, an L-shaped drive, parked, a straight drive, parked.
        var fixes: [Location] = (0..<10).map { fix($0, 0, 0, speed: 0) }
        fixes += (1...20).map { fix(9 + $0, Double($0) * 10, 0, speed: 10) }
        fixes += (1...20).map { fix(29 + $0, 200, Double($0) * 10, speed: 10) }
        fixes += (0..<10).map { fix(50 + $0, 200, 200, speed: 0) }
        fixes += (1...30).map { fix(60 + $0, 200 - Double($0) * 10, 200, speed: 10) }
        fixes += (0..<10).map { fix(91 + $0, -100, 200, speed: 0) }
        // Three stops; the L's ends and corner; the straight's ends.
        #expect(FewestPoints.count(fixes, tolerance: 10) { ($0.speed ?? 0) >= 1 } == 3 + 3 + 2)
        // The points themselves: each stop's where the vehicle came to rest, the L's ends and
        // corner, the straight's ends. The corner is the fix 10 m before the turn: the way north
        // from it passes 9.99 m from the turn, as few points as the turn itself and found first.
        let chosen = FewestPoints.points(fixes, tolerance: 10) { ($0.speed ?? 0) >= 1 }
        #expect(chosen.map { start.seconds(to: $0.time) } == [0, 10, 28, 49, 50, 61, 90, 91])
        // Stop-and-go: a pause shorter than the stop time is part of the stretch.
        var traffic: [Location] = (0..<10).map { fix($0, 0, 0, speed: 0) }
        for n in 0..<40 { traffic.append(fix(10 + n, Double(n) * 5, 0, speed: n % 10 < 3 ? 0 : 5)) }
        traffic += (0..<10).map { fix(50 + $0, 200, 0, speed: 0) }
        #expect(FewestPoints.count(traffic, tolerance: 10) { ($0.speed ?? 0) >= 1 } == 2 + 2)
        // A test of the caller's on each segment, by the fixes at its ends: here no segment
        // longer than 55 m (the true path would tell where the road is): the L's legs of 200 m
        // need three points more each, the straight's 300 m five more.
        let short = FewestPoints.count(fixes, tolerance: 10, admits: { Geodesy.distance($0, $1) <= 55 }) { ($0.speed ?? 0) >= 1 }
        #expect(short == 3 + 3 + 2 + 3 + 3 + 5)
    }

    /// A segment must also pass `admits` (the fidelity tests ask that it stay near the true path),
    /// but one between consecutive points always may: nothing narrower joins them.
    @Test func aSegmentTheCallerRefusesIsNotTaken() {
        let straight = (0..<50).map { Point(Double($0) * 10, $0 % 2 == 0 ? 2 : -2) }
        #expect(FewestPoints.count(straight, tolerance: 5, admits: { $1 - $0 <= 10 }) == 6, "0, 10, 20, 30, 40 and 49")
        #expect(FewestPoints.count(straight, tolerance: 5, admits: { _, _ in false }) == 50)
        var asked = 0
        #expect(FewestPoints.count(straight, tolerance: 5, admits: { _, _ in asked += 1; return true }) == 2)
        #expect(asked > 0)
    }
}

/// The deviation trigger on random roads: its promise, and its count against the optimum.
@Suite struct DeviationTriggerTests {
    @Test func keepsEveryMovingFixWithinTheToleranceWithCloseToTheFewestPoints() {
        var random = SplitMix(seed: 16)
        var (kept, fewest) = (0, 0)
        for round in 0..<60 {
            let walk = FewestPointsTests.walk(&random, count: 200)
            let fixes = walk.enumerated().map { Track.fix(Double($0.offset), east: $0.element.x, north: $0.element.y, speed: 10) }
            var configuration = FilterConfiguration()
            configuration.maxInterval = 10_000
            var triggers = MotionTriggers(configuration: configuration)
            var track = fixes.flatMap { triggers.process($0).map(\.location) }
            track += triggers.finish().map(\.location)
            // A centimetre for the planes: the trigger projects around its last point, the measure
            // around the track's first, and they differ by a fraction of a millimetre.
            let (beyond, farthest) = SimplificationFidelityTests.compliance(fixes, track: track, tolerance: configuration.maxDeviation + 0.01)
            #expect(beyond == 0, "round \(round): \(beyond) fixes beyond the tolerance, the farthest \(farthest) m")
            kept += track.count
            fewest += FewestPoints.count(fixes, tolerance: configuration.maxDeviation) { _ in true }
        }
        let ratio = Double(kept) / Double(fewest)
        print("deviation trigger on 60 random roads: \(kept) kept, \(fewest) fewest possible, ratio \(ratio)")
        #expect(ratio <= 1.3)
    }
}
