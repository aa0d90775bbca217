import Foundation
import Testing
import TrackingCore

/// The deviation trigger against the offline optimum (`FewestPoints`) at the same tolerance, on
/// make_drive's route and on gpstrackd's own (`Tests/Routes/make_routes.py`), with every figure
/// the fidelity of a track has: points kept against the fewest any track needs, moving fixes left
/// farther than `max-deviation` from the kept track, the distance from the true path.
@Suite(.serialized) struct SimplificationFidelityTests {
    struct Report {
        var kept: Int
        var optimum: Int
        /// The fewest with no two points more than `max-interval` apart (the heartbeat's due).
        var optimumWithHeartbeat: Int
        /// The fewest whose track also stays within the distance bound of the true path, its
        /// segments measured against the true path in the time they span (`nearThePath`): what a
        /// filter that knew where the road is would need. Where the filter misses the bound and
        /// this is within 1.2x the fewest, the miss is not the noise's alone.
        var withinTheBound: Int
        var ratio: Double { Double(kept) / Double(max(1, optimum)) }
        /// Moving fixes that passed the gate farther than `max-deviation` + 0.5 m from the kept
        /// segment of their time, and the farthest.
        var beyond: Int
        var farthest: Double
        var truth: TrackFidelity
        /// The every-fix floor: how far from the true path the track through every fix that
        /// passed the gate lies (the track the daemon would draw if it sent all it may send). The
        /// fixes the gate rejects are no track's: with them, a road's multipath bursts set the
        /// floor at 15-21 m (random roads 101, 202, 303) and the bound with it.
        var floor: Double
        /// The farthest a moving fix that passed the gate lies from where the vehicle truly was.
        var noise: Double
        var parked: Int
        var worstPhase: String
        /// Kept fixes farther than 15 m from where the vehicle truly was then (an outlier kept).
        var offPath: Int
        /// Where the kept points and the fewest's differ, by the phase of the drive each stands
        /// in (`PhaseCounts`): where the filter spends the points the optimum does not.
        var byPhase: PhaseCounts
        var summary: String

        var line: String {
            String(format: "kept %d, optimum %d, ratio %.2f (%.2f against %d, the fewest with a point every max-interval; %d within the distance bound, knowing the true path); %d moving fixes beyond the tolerance (farthest %.1f m); "
                   + "%.1f m from the true path (every fix %.1f m; fixes up to %.1f m off), %.2f points/km, %d parked, %d kept off the path", kept, optimum, ratio,
                   Double(kept) / Double(max(1, optimumWithHeartbeat)), optimumWithHeartbeat, withinTheBound, beyond,
                   farthest, truth.maxDeviation, floor, noise, truth.pointsPerKilometre, parked, offPath) + " worst at \(truth.worstTime?.iso8601 ?? "-") (\(worstPhase)); \(byPhase.differences); \(summary)"
        }
    }

    static func measure(_ name: String, configuration: FilterConfiguration = FilterConfiguration()) throws -> Report {
        let truth = try FilterFidelityTests.truth("\(name).truth.jsonl")
        let locations = try FilterFidelityTests.locations("\(name).locations.jsonl")
        let phaseByTime = Dictionary(truth.map { ($0.point.time, $0.phase) }, uniquingKeysWith: { a, _ in a })
        let isMoving = FilterFidelityTests.isMoving(by: truth, stoppedSpeed: configuration.stoppedSpeed)

        let (kept, chain, passed) = FilterFidelityTests.run(locations, configuration: configuration)
        let fewest = FewestPoints.points(passed, tolerance: configuration.maxDeviation, isMoving: isMoving)
        let track = kept.map(\.location)
        let fidelity = TrackFidelity(kept: track, path: truth.map(\.point))
        let moving = passed.filter(isMoving)
        let (beyond, farthest) = compliance(moving, track: track, tolerance: configuration.maxDeviation + 0.5)
        let floor = TrackFidelity(kept: passed, path: truth.map(\.point)).maxDeviation
        return Report(
            kept: kept.count, optimum: fewest.count,
            optimumWithHeartbeat: FewestPoints.count(passed, tolerance: configuration.maxDeviation, maxInterval: configuration.maxInterval, isMoving: isMoving),
            withinTheBound: FewestPoints.count(passed, tolerance: configuration.maxDeviation,
                                               admits: nearThePath(truth.map(\.point), within: truthBound(floor: floor)), isMoving: isMoving),
            beyond: beyond, farthest: farthest,
            truth: fidelity,
            floor: floor,
            noise: noise(moving, truth),
            parked: kept.filter { phaseByTime[$0.location.time] == "parked" }.count,
            worstPhase: fidelity.worstTime.flatMap { phaseByTime[$0] } ?? "-", offPath: offPath(track, truth),
            byPhase: PhaseCounts(kept: track, fewest: fewest, phaseByTime: phaseByTime), summary: chain.counters.summary)
    }

    /// Issue 16's distance bound: 12 m from the true path, or 1.2x the every-fix floor where the
    /// receiver's own noise is larger.
    static func truthBound(floor: Double) -> Double { max(12, 1.2 * floor) }

    /// Whether every point of the true path in the time from fix `a` to fix `b` lies within `bound`
    /// of their segment. Each point is measured against the segment of its time, a stricter
    /// measure than `TrackFidelity`'s nearest segment: a track within the bound needs at most the
    /// points a count with it gives.
    static func nearThePath(_ path: [TrackFidelity.PathPoint], within bound: Double) -> (Location, Location) -> Bool {
        guard let first = path.first else { return { _, _ in true } }
        let plane = LocalPlane(latitude: first.latitude, longitude: first.longitude)
        let points = path.map { plane.project(latitude: $0.latitude, longitude: $0.longitude) }
        return { a, b in
            var (low, high) = (0, path.count)
            while low < high {
                let middle = (low + high) / 2
                if path[middle].time < a.time { low = middle + 1 } else { high = middle }
            }
            let (start, end) = (plane.project(a), plane.project(b))
            var k = low
            while k < path.count, path[k].time <= b.time {
                if LocalPlane.distance(from: points[k], toSegment: start, end) > bound { return false }
                k += 1
            }
            return true
        }
    }

    static func noise(_ fixes: [Location], _ truth: [FilterFidelityTests.TruthPoint]) -> Double {
        let truthByTime = Dictionary(truth.map { ($0.point.time, $0.point) }, uniquingKeysWith: { a, _ in a })
        return fixes.compactMap { fix in
            truthByTime[fix.time].map { Geodesy.distance((fix.latitude, fix.longitude), ($0.latitude, $0.longitude)) }
        }.max() ?? 0
    }

    static func offPath(_ track: [Location], _ truth: [FilterFidelityTests.TruthPoint]) -> Int {
        let truthByTime = Dictionary(truth.map { ($0.point.time, $0.point) }, uniquingKeysWith: { a, _ in a })
        return track.filter { fix in
            guard let point = truthByTime[fix.time] else { return false }
            return Geodesy.distance((fix.latitude, fix.longitude), (point.latitude, point.longitude)) > 15
        }.count
    }

    /// Each fix against the kept segment that spans its time.
    static func compliance(_ fixes: [Location], track: [Location], tolerance: Double) -> (beyond: Int, farthest: Double) {
        guard let first = track.first else { return (fixes.count, .infinity) }
        let plane = LocalPlane(latitude: first.latitude, longitude: first.longitude)
        let points = track.map { plane.project($0) }
        var segment = 0
        var (beyond, farthest) = (0, 0.0)
        for fix in fixes where fix.time >= first.time && fix.time <= track[track.count - 1].time {
            while segment + 1 < track.count - 1, track[segment + 1].time < fix.time { segment += 1 }
            let distance = track.count == 1 ? Geodesy.distance(first, fix)
                : LocalPlane.distance(from: plane.project(fix), toSegment: points[segment], points[segment + 1])
            farthest = max(farthest, distance)
            if distance > tolerance { beyond += 1 }
        }
        return (beyond, farthest)
    }

    /// make_drive's route (five seeds; seed 3 once left the way out of its parking place off the
    /// track), our fixed routes, and random roads (`make_routes.py --route random`), at 1, 5 and
    /// 10 Hz (road 1004 drawn after the driver learned to brake before a turn; road 41302 with the
    /// receiver's GST reported beside gpsd's figure, as make_drive's seeds and road 1004 are).
    static let drives = FilterFidelityTests.unseenDrives(prefix: "") ?? [
        "drive-seed3", "drive-seed7", "drive-seed11", "drive-seed23", "drive-seed43", "drive-seed61",
        "route-suburb-1hz", "route-suburb-5hz", "route-suburb-10hz", "route-highway-1hz", "route-canyon-1hz", "route-canyon-5hz",
        "route-random101-1hz", "route-random101-10hz", "route-random202-5hz", "route-random303-1hz", "route-random1004-1hz",
        "route-random41302-5hz",
    ]

    /// Drives whose track misses the distance bound, as measured: recorded as known, not hidden
    /// (the test says so when one is gone), each held against getting worse.
    /// None now: random road 101 at 10 Hz, 12.1 m on a highway's curve whose fixes stand 6-7 m
    /// inside the road, is 10.9 m off since the trigger reads where the fixes stand
    /// (`ReceiverOffset`).
    static let knownMisses: [String: KnownShortfall] = [:]

    @Test(arguments: drives)
    func keepsCloseToTheFewestPointsAndEveryMovingFixWithinTheTolerance(drive: String) async throws {
        let report = try await offThePool { try Self.measure(drive) }
        print("\(drive): \(report.line)")
        #expect(report.beyond == 0, "every moving fix within max-deviation + 0.5 m of the kept track")
        // The targets are 1.2x the fewest points at 1 and 5 Hz, and at 10 Hz no more points than
        // the same road at 1 Hz (points per km must not grow with the receiver's rate); 12 m from
        // the true path (or 1.2x the every-fix floor).
        if let sibling = Self.sameRoadAtOneHertz(drive) {
            let slower = try await offThePool { try Self.measure(sibling) }
            #expect(report.kept <= slower.kept, "no more points than the same road at 1 Hz (\(slower.kept))")
        } else {
            #expect(report.ratio <= 1.2, "close to the fewest points any track needs")
            #expect(report.kept <= report.optimumWithHeartbeat * 6 / 5 + 1, "close to the fewest points a track with the heartbeat needs")
        }
        // The true path is within the receiver's own error of the fixes, and the fixes within the
        // tolerance of the track: that sum is what a track can promise.
        #expect(report.truth.maxDeviation <= MotionTriggers.coneShare * 10 + report.noise + 0.5, "within the receiver's error of the fixes' track")
        let truthBound = Self.truthBound(floor: report.floor)
        KnownShortfall.expect(report.truth.maxDeviation, within: truthBound, known: Self.knownMisses[drive],
                              "within 12 m of the true path, or 1.2x the every-fix floor")
        #expect(report.parked <= 4, "at most two points per parked period")
        // A fix a reflection put off the road must not become a point (the gate's excursions);
        // the receiver's own noise leaves the fixes that pass within 15 m of the road.
        #expect(report.offPath == 0, "no kept point more than 15 m off the true path")
    }

    /// The 1 Hz drive of the same road as a 10 Hz one, when the drives measured include it.
    static func sameRoadAtOneHertz(_ drive: String) -> String? {
        guard drive.hasSuffix("-10hz") else { return nil }
        let sibling = String(drive.dropLast("-10hz".count)) + "-1hz"
        return drives.contains(sibling) ? sibling : nil
    }
}
