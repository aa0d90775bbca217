import Foundation
import TestSupport
import Testing
import TrackingCore

@Suite struct MotionTriggersTests {
    func run(_ fixes: [Location], configuration: FilterConfiguration = FilterConfiguration()) -> [KeptLocation] {
        var triggers = MotionTriggers(configuration: configuration)
        return fixes.flatMap { triggers.process($0) }
    }

    func seconds(_ kept: [KeptLocation]) -> [Double] {
        kept.map { Track.start.seconds(to: $0.location.time) }
    }

    @Test func keepsTheFirstFix() {
        let kept = run([Track.fix(0), Track.fix(1, east: 10)])
        #expect(kept.map(\.trigger) == [.first])
    }

    @Test func keepsAHeartbeatWhileMovingStraight() {
        let fixes = (0...130).map { Track.fix(Double($0), east: Double($0) * 10) }
        let kept = run(fixes)
        #expect(kept.map(\.trigger) == [.first, .heartbeat, .heartbeat])
        #expect(seconds(kept) == [0, 60, 120])
    }

    @Test func aCornerTheHeartbeatNeedsIsItsProofOfLife() {
        // East for 59 s at 10 m/s, then north: the heartbeat falls due on the first fix past the
        // corner, which needs the corner kept; the corner is the point, and the fix is held.
        // (At 8 m: with the whole 10 m, the fix 10 m past a corner 590 m out is within it.)
        var fixes = (0...59).map { Track.fix(Double($0), east: Double($0) * 10) }
        fixes += (60...130).map { Track.fix(Double($0), east: 590, north: Double($0 - 59) * 10, course: 0) }
        var configuration = FilterConfiguration()
        configuration.maxDeviation = 8
        let kept = run(fixes, configuration: configuration)
        #expect(kept.map(\.trigger) == [.first, .deviation, .heartbeat])
        #expect(seconds(kept) == [0, 59, 119], "no heartbeat a second after the corner; the next 60 s after it")
    }

    @Test func aCornerSoonAfterTheHeartbeatFellDueIsItsProofOfLife() {
        // East at 10 m/s, north from 65 s: the heartbeat falls due at 60 s on the straight, and
        // the corner 5 s later needs a point anyway (the fix 10 m past it, the farthest a
        // segment reaches). That point is the proof of life, within a sixth of max-interval of
        // the heartbeat; the next heartbeat is 60 s after it, on the fix it fell due at.
        var fixes = (0...65).map { Track.fix(Double($0), east: Double($0) * 10) }
        fixes += (66...140).map { Track.fix(Double($0), east: 650, north: Double($0 - 65) * 10, course: 0) }
        let kept = run(fixes)
        #expect(kept.map(\.trigger) == [.first, .deviation, .heartbeat])
        #expect(seconds(kept) == [0, 66, 126], "no heartbeat 6 s before the corner's point")
        // Under a tracker's rule the spacing meets the heartbeat itself: it is a wish at once.
        var ruled = FilterConfiguration()
        ruled.trackerFiltering = .distanceBased
        #expect(seconds(run(fixes, configuration: ruled)) == [0, 60, 66, 126])
    }

    @Test func keepsTheApexOfACorner() {
        // East for 20 s at 10 m/s, then north; at 8 m, so that the fix 10 m past the corner is
        // beyond the tolerance of a segment that cuts it.
        var fixes = (0...20).map { Track.fix(Double($0), east: Double($0) * 10) }
        fixes += (1...20).map { Track.fix(Double(20 + $0), east: 200, north: Double($0) * 10, course: 0) }
        var configuration = FilterConfiguration()
        configuration.maxDeviation = 8
        let kept = run(fixes, configuration: configuration)
        #expect(kept.map(\.trigger) == [.first, .deviation])
        #expect(seconds(kept) == [0, 20], "the corner itself, at 200 m east")
    }

    @Test func aNewMaximumDeviationAppliesToTheFixesAlreadyHeld() {
        var triggers = MotionTriggers(configuration: FilterConfiguration())
        let fixes = (0...20).map { Track.fix(Double($0), east: Double($0) * 10, north: $0 % 2 == 0 ? 4 : -4) }
        #expect(fixes.flatMap { triggers.process($0) }.map(\.trigger) == [.first], "8 m of wobble is within 10 m")
        var tighter = triggers.configuration
        tighter.maxDeviation = 2
        triggers.configuration = tighter
        let after = triggers.process(Track.fix(21, east: 210, north: -4))
        #expect(!after.isEmpty && after.allSatisfy { $0.trigger == .deviation }, "judged again at 2 m: corners at once")
    }

    @Test func ignoresWobbleWithinTheMaximumDeviation() {
        let fixes = (0...50).map { Track.fix(Double($0), east: Double($0) * 10, north: $0 % 2 == 0 ? 4 : -4) }
        #expect(run(fixes).map(\.trigger) == [.first])
    }

    @Test func keepsStopAndDepartureOfAStopAwayFromTheLastPoint() {
        var fixes = (0...10).map { Track.fix(Double($0), east: Double($0) * 10) }
        // Stopped at 100 m east for 30 s, with receiver noise.
        fixes += (11...40).map { Track.fix(Double($0), east: 100 + Double($0 % 3), speed: 0.3) }
        fixes += (41...50).map { Track.fix(Double($0), east: 100 + Double($0 - 40) * 10) }
        let kept = run(fixes)
        #expect(kept.map(\.trigger) == [.first, .stop])
        #expect(seconds(kept) == [0, 16], "stopped after 5 s below 1 m/s")
    }

    @Test func theTrackReachesWhereTheVehicleCameToRest() {
        // East at 10 m/s, at rest 106 m east (the first slow fix, still rolling at 0.9 m/s),
        // while the receiver drifts 11 m back by the time the stop is decided: the chord to that
        // drifted fix covers the way there, not the place where the vehicle stopped.
        var fixes = (0...10).map { Track.fix(Double($0), east: Double($0) * 10) }
        fixes.append(Track.fix(11, east: 106, speed: 0.9))
        fixes += (12...16).map { Track.fix(Double($0), east: 106 - Double($0 - 11) * 1.8, north: -Double($0 - 11) * 1.2, speed: 0.1) }
        let kept = run(fixes)
        #expect(kept.last?.trigger == .stop)
        let (beyond, farthest) = SimplificationFidelityTests.compliance([fixes[11]], track: kept.map(\.location), tolerance: 10)
        #expect(beyond == 0, "the track passes within max-deviation of where the vehicle stopped (\(farthest) m)")
    }

    /// East at 10 m/s, at rest 103-105 m east for 5 s; then, as the stop is decided, the receiver
    /// drifts 12 m north. The segment from the first point to that fix passes 10.7 m from the
    /// approach at 90 m: kept as the stop's point, it needed a corner on the way in. A fix of the
    /// stop near the line needs none: the one nearest the middle of the stop's fixes is kept.
    @Test func aStopIsKeptAtAFixOfItsOwnTheApproachReaches() {
        var fixes = (0...10).map { Track.fix(Double($0), east: Double($0) * 10) }
        let resting: [(east: Double, north: Double)] = [(104, 0.5), (103, -1), (105, 1), (104, -0.5), (103, 1), (100, 12)]
        fixes += resting.enumerated().map { Track.fix(Double(11 + $0.offset), east: $0.element.east, north: $0.element.north, speed: 0.2) }
        let kept = run(fixes)
        #expect(kept.map(\.trigger) == [.first, .stop], "no corner on the way in")
        #expect(seconds(kept) == [0, 15], "(103, 1): 2.2 m from the middle of the six")
        let (beyond, farthest) = SimplificationFidelityTests.compliance(Array(fixes[1...11]), track: kept.map(\.location), tolerance: 10)
        #expect(beyond == 0, "the approach within max-deviation of the track (\(farthest) m)")
    }

    @Test func keepsTheDepartureWhenItIsAwayFromTheStopPoint() {
        var fixes = (0...10).map { Track.fix(Double($0), east: Double($0) * 10) }
        fixes += (11...40).map { Track.fix(Double($0), east: 100, speed: 0.2) }
        // Creeps 30 m slowly (a parking lot), then drives off.
        fixes += (41...55).map { Track.fix(Double($0), east: 100 + Double($0 - 40) * 2, speed: 0.9) }
        fixes += (56...70).map { Track.fix(Double($0), east: 130 + Double($0 - 55) * 10) }
        let kept = run(fixes)
        #expect(kept.map(\.trigger) == [.first, .stop, .departure])
        #expect(seconds(kept) == [0, 16, 55])
    }

    /// Parked for 40 s around the origin (within 3 m), the first fix off it, then away east.
    func parkedStart(firstEast: Double) -> [Location] {
        var generator = SplitMix(seed: 11)
        func noise() -> Double { Double(generator.next() % 2001) / 1000 * 3 - 3 }
        var fixes = [Track.fix(0, east: firstEast, speed: 0.2, accuracy: 8)]
        fixes += (1...40).map { Track.fix(Double($0), east: noise(), north: noise(), speed: 0.2, accuracy: 8) }
        fixes += (41...55).map { Track.fix(Double($0), east: Double($0 - 40) * 10, accuracy: 8) }
        return fixes
    }

    @Test func aStopIsKeptWhereTheVehicleStoodNotWhereOneFixDrifted() {
        let kept = run(parkedStart(firstEast: 12))
        #expect(kept.map(\.trigger) == [.first, .departure])
        let place = try! #require(kept.last?.location)
        #expect(Geodesy.distance(Track.fix(0), place) < 3, "the fix nearest the middle of the parked ones")
        #expect(seconds(kept)[1] > 0 && seconds(kept)[1] <= 40, "a fix from the parked time")
    }

    @Test func theWayOutOfAParkingPlaceIsTrackedFromItsFirstFastFix() {
        // The run of fast fixes that ends the stop begins 14 m west and 4 m north of the place,
        // then the vehicle turns east: the first fast fix is on the way and must be near the track.
        var fixes = parkedStart(firstEast: 12)
        fixes.removeLast(15)
        fixes.append(Track.fix(41, east: -14, north: 4, speed: 3, course: 300, accuracy: 8))
        fixes.append(Track.fix(42, east: -4, north: 14, speed: 5, course: 60, accuracy: 8))
        fixes += (43...60).map { Track.fix(Double($0), east: Double($0 - 42) * 10, north: 14, accuracy: 8) }
        var triggers = MotionTriggers(configuration: FilterConfiguration())
        let kept = fixes.flatMap { triggers.process($0) } + triggers.finish()
        #expect(Array(kept.map(\.trigger).prefix(2)) == [.first, .departure])
        let (beyond, farthest) = SimplificationFidelityTests.compliance(Array(fixes[41...]), track: kept.map(\.location), tolerance: 10)
        #expect(beyond == 0, "every fix of the way out within max-deviation of the track (farthest \(farthest) m)")
    }

    @Test func theWayOutIncludesTheSlowFixesBeforeTheFastOnes() {
        // East at 10 m/s, a stop at 100 m whose point is a fix drifted 6 m south; the vehicle
        // pulls away at 1.5 m/s (moving, not yet `moving-speed`) 6 m north of the road, then on
        // along it. The segment from the stop's point to the end passes 12 m from the slow fixes.
        var fixes = (0...10).map { Track.fix(Double($0), east: Double($0) * 10, accuracy: 8) }
        fixes += (11...30).map { Track.fix(Double($0), east: 100, north: $0 == 16 ? -6 : 0, speed: 0.2, accuracy: 8) }
        fixes += (31...33).map { Track.fix(Double($0), east: 100 + Double($0 - 30) * 2, north: 6, speed: 1.5, accuracy: 8) }
        fixes += (34...60).map { Track.fix(Double($0), east: 110 + Double($0 - 34) * 10, accuracy: 8) }
        var triggers = MotionTriggers(configuration: FilterConfiguration())
        let kept = fixes.flatMap { triggers.process($0) } + triggers.finish()
        #expect(seconds(kept).prefix(2) == [0, 16], "the first point and the stop's")
        let (beyond, farthest) = SimplificationFidelityTests.compliance(Array(fixes[30...]), track: kept.map(\.location), tolerance: 10)
        #expect(beyond == 0, "every fix of the way out within max-deviation of the track (farthest \(farthest) m)")
    }

    @Test func aFirstFixWhereTheVehicleStandsNeedsNoOther() {
        #expect(run(parkedStart(firstEast: 2)).map(\.trigger) == [.first])
    }

    @Test func parkedDriftKeepsOnlyStationaryHeartbeats() {
        var generator = SplitMix(seed: 7)
        func noise(_ scale: Double) -> Double { Double(generator.next() % 2001) / 1000 * scale - scale }
        let fixes = (0..<3600).map { second in
            Track.fix(Double(second), east: noise(12), north: noise(12), speed: abs(noise(0.5)), course: noise(180) + 180, accuracy: 8)
        }
        let kept = run(fixes)
        #expect(kept.map(\.trigger) == [.first, .heartbeat, .heartbeat, .heartbeat])
        #expect(seconds(kept) == [0, 900, 1800, 2700])
    }

    @Test func minimumIntervalHoldsBackTriggersButNotStateChanges() {
        var configuration = FilterConfiguration()
        configuration.minInterval = 5
        configuration.maxInterval = 2
        let fixes = (0...12).map { Track.fix(Double($0), east: Double($0) * 10) }
        #expect(seconds(run(fixes, configuration: configuration)) == [0, 5, 10])
    }

    @Test func optionalDistanceTriggerIsAccuracyAware() {
        var configuration = FilterConfiguration()
        configuration.minDistance = 50
        let fixes = (0...12).map { Track.fix(Double($0), east: Double($0) * 10, accuracy: $0 < 8 ? 40 : 5) }
        // From 5 s to 7 s the fix is 50–70 m away but the accuracies sum to 80 m; at 8 s 80 m > 45 m.
        let kept = run(fixes, configuration: configuration)
        #expect(kept.map(\.trigger) == [.first, .distance])
        #expect(seconds(kept) == [0, 8])
    }

    @Test func optionalAngleTriggerWrapsAroundNorth() {
        var configuration = FilterConfiguration()
        configuration.minAngle = 10
        configuration.maxDeviation = 1000
        let courses: [Double] = [355, 359, 3, 4, 6]
        let fixes = courses.enumerated().map { Track.fix(Double($0.offset), north: Double($0.offset) * 10, course: $0.element) }
        let kept = run(fixes, configuration: configuration)
        #expect(kept.map(\.trigger) == [.first, .angle])
        #expect(seconds(kept) == [0, 4], "355° → 6° is 11°, 355° → 4° only 9°")
    }

    @Test func finishKeepsTheLastFixWhileMoving() {
        var triggers = MotionTriggers(configuration: FilterConfiguration())
        for second in 0...10 { _ = triggers.process(Track.fix(Double(second), east: Double(second) * 10)) }
        #expect(triggers.finish().last?.location.time == Track.start.adding(seconds: 10))
        #expect(triggers.finish().isEmpty)
    }
}

/// A bend's inside: the receiver's fixes cut it already, so the kept track may cut them less.
/// Once the fixes' offset from the road is read (`ReceiverOffset`, after 20 s), without a tracker
/// rule, the inside gets a milder share (`readTurnShare`, `readCornerShare`): the room on a fix's
/// far side from the road answers for a cut the fixes made.
@Suite struct MotionTriggersBendTests {
    /// The share of the tolerance a fix on a bend's inside has, its offset read, under `filtering`.
    static func share(_ filtering: TrackerFiltering, corner: Bool = false) -> Double {
        switch (filtering, corner) {
        case (.none, false): MotionTriggers.readTurnShare
        case (.none, true): MotionTriggers.readCornerShare
        case (_, false): MotionTriggers.turnShare
        case (_, true): MotionTriggers.cornerShare
        }
    }

    @Test(arguments: [TrackerFiltering.none, .distanceBased])
    func aCurveIsCutByLessThanAStraightsWobble(filtering: TrackerFiltering) {
        // A right-hand curve of 400 m radius at 20 m/s (2.9°/s), the receiver's fixes on it.
        let radius = 400.0, speed = 20.0
        let fixes = (0...40).map { second -> Location in
            let angle = Double(second) * speed / radius
            return Track.fix(Double(second), east: radius * sin(angle), north: radius * (cos(angle) - 1),
                             speed: speed, course: 90 + angle * 180 / .pi)
        }
        var configuration = FilterConfiguration()
        configuration.trackerFiltering = filtering
        var triggers = MotionTriggers(configuration: configuration)
        var track = fixes.flatMap { triggers.process($0).map(\.location) }
        track += triggers.finish().map(\.location)
        let (_, farthest) = SimplificationFidelityTests.compliance(fixes, track: track, tolerance: 10)
        // All the fixes lie on the curve's outside of its chords: the bend's 7 m (8 m with the
        // offset read, without a rule), not the 10 m a straight's wobble gets
        // (`ignoresWobbleWithinTheMaximumDeviation`).
        #expect(farthest <= 10 * Self.share(filtering) + 0.05, "the farthest fix \(farthest) m off the kept track")
        #expect(farthest > 5, "the room is used: \(track.count) points")
    }

    /// A town corner: east at 8 m/s, right through 90° at 18° a second (a 25 m radius), then
    /// south. From the turn's end the fixes read as a corner (`cornerRate`) and get
    /// `cornerShare` of the room on their inside, less than a curve's `turnShare`: with it the
    /// segment out of the corner passed 6.7 m inside them.
    @Test(arguments: [TrackerFiltering.none, .distanceBased])
    func aCornerIsCutByLessThanACurve(filtering: TrackerFiltering) {
        let fixes = Track.driven(through: 50, speed: 8) { second in 90 + min(90, max(0, Double(second - 20) * 18)) }
        var configuration = FilterConfiguration()
        configuration.trackerFiltering = filtering
        var triggers = MotionTriggers(configuration: configuration)
        var track = fixes.flatMap { triggers.process($0).map(\.location) }
        track += triggers.finish().map(\.location)
        let (_, farthest) = SimplificationFidelityTests.compliance(Array(fixes[25...]), track: track, tolerance: 10)
        #expect(Self.share(filtering, corner: true) < Self.share(filtering))
        #expect(farthest <= 10 * Self.share(filtering, corner: true) + 0.05, "the farthest fix from the turn's end on \(farthest) m off the kept track")
        #expect(farthest > 5, "the room is used: \(track.count) points")
    }
}

/// A gap in the fixes (a tunnel): the segment across it stands in for the whole road there.
@Suite struct MotionTriggersGapTests {
    /// East at 10 m/s for 20 s, no fix for 40 s, then seen again `offset` m south of the line,
    /// driving back onto it over 40 s. A heartbeat far off, so that only the deviation decides.
    func track(exitOffset offset: Double) -> (kept: [KeptLocation], exit: Location, fixes: [Location]) {
        var fixes = (0...20).map { Track.fix(Double($0), east: Double($0) * 10) }
        fixes += (60...100).map { second -> Location in
            let share = Double(100 - second) / 40
            return Track.fix(Double(second), east: Double(second) * 10, north: -offset * share)
        }
        return (Self.kept(fixes), fixes[21], fixes)
    }

    /// What the triggers keep of `fixes`, to the end, with a heartbeat far off.
    static func kept(_ fixes: [Location]) -> [KeptLocation] {
        var configuration = FilterConfiguration()
        configuration.maxInterval = 600
        var triggers = MotionTriggers(configuration: configuration)
        return fixes.flatMap { triggers.process($0) } + triggers.finish()
    }

    @Test func theTrackEndsTheGapNearWhereTheVehicleWasSeenAgain() {
        // 8 m off: within the tolerance of a straight segment across, not within half of it.
        let (kept, exit, fixes) = track(exitOffset: 8)
        let (_, farthest) = SimplificationFidelityTests.compliance([exit], track: kept.map(\.location), tolerance: 10)
        #expect(farthest <= 5.05, "the first fix after the gap \(farthest) m off the kept track")
        #expect(kept.count == 3, "one point for the gap's end: \(kept.map(\.trigger))")
        let (beyond, _) = SimplificationFidelityTests.compliance(fixes, track: kept.map(\.location), tolerance: 10)
        #expect(beyond == 0)
    }

    @Test func aGapEndedNearTheSegmentAcrossItNeedsNoPoint() {
        let (kept, _, _) = track(exitOffset: 4)
        #expect(kept.map(\.trigger) == [.first, .final])
    }

    /// Standing at the origin for 30 s, pulling away east at 31 s at 10 m/s, 8 m north of the
    /// line until 36 s and back on it by 56 s. With `gap`, no fix from 31 s to 35 s (the gate
    /// rejected them: a red light's multipath).
    func departure(gap: Bool) -> (kept: [KeptLocation], exit: Location, fixes: [Location]) {
        var fixes = (0...30).map { Track.fix(Double($0), speed: 0) }
        fixes += ((gap ? 36 : 31)...100).map { second in
            Track.fix(Double(second), east: Double(second - 30) * 10, north: 8 * min(1, max(0, Double(56 - second) / 20)))
        }
        return (Self.kept(fixes), fixes[31], fixes)
    }

    @Test func aDepartureSeenOnlyAfterAGapEndsItNearWhereTheVehicleWasSeenAgain() {
        // Random road 303: the way out of a red light into a roundabout, its first 6 s of fixes
        // rejected, was cut by 17 m when the first fix seen had the whole tolerance.
        let (kept, exit, fixes) = departure(gap: true)
        let (_, farthest) = SimplificationFidelityTests.compliance([exit], track: kept.map(\.location), tolerance: 10)
        #expect(farthest <= 5.05, "the first fix after the gap \(farthest) m off the kept track")
        #expect(kept.map(\.trigger).filter { $0 == .deviation }.count == 1, "one point for the gap's end: \(kept.map(\.trigger))")
        let (beyond, _) = SimplificationFidelityTests.compliance(fixes, track: kept.map(\.location), tolerance: 10)
        #expect(beyond == 0)
    }

    @Test func aDepartureSeenFromItsFirstFixHasTheWholeTolerance() {
        #expect(departure(gap: false).kept.map(\.trigger) == [.first, .final])
    }

    @Test func withoutTheGapTheWholeToleranceHolds() {
        // The same road with every fix: the 8 m are the tolerance's, no point needed.
        func north(_ second: Int) -> Double {
            if second <= 20 { return 0 }
            return second < 60 ? -8 * Double(second - 20) / 40 : -8 * Double(100 - second) / 40
        }
        let fixes = (0...100).map { Track.fix(Double($0), east: Double($0) * 10, north: north($0)) }
        #expect(Self.kept(fixes).map(\.trigger) == [KeepTrigger.first, .final])
    }
}

/// A receiver's jump just after a corner, within `min-interval` of it: the fixes there may not be
/// points, so the corner must be one from which the track can reach past them.
@Suite struct MotionTriggersJumpAfterACornerTests {
    /// Two minutes of a random road of our own at 5 Hz (12347), a receiver reporting 15-57 m of
    /// accuracy, recorded through gpsd: 0.2 s after the fix a corner was kept at (09:07:43.8) it
    /// jumped 14 m east for 0.8 s, and the gate rejected the 2 s after for their accuracy. The
    /// segment from that corner to the first fix past `min-interval` passed 10.54 m from the jump.
    @Test func everyMovingFixStaysWithinTheToleranceAndNoTwoPointsWithinMinInterval() throws {
        let locations = try FilterFidelityTests.locations("route-jump12347-5hz.locations.jsonl")
        let (kept, _, passed) = FilterFidelityTests.run(locations)
        let moving = passed.filter { !$0.stands(atMost: FilterConfiguration().stoppedSpeed) }
        let (beyond, farthest) = SimplificationFidelityTests.compliance(moving, track: kept.map(\.location), tolerance: 10)
        #expect(beyond == 0, "the farthest moving fix \(farthest) m off the kept track")
        let times = kept.filter { $0.trigger != .stop && $0.trigger != .departure }.map { Track.start.seconds(to: $0.location.time) }
        #expect(zip(times, times.dropFirst()).allSatisfy { $1 - $0 >= 1 }, "\(times)")
    }

    /// A hairpin at 5 Hz: east at 10 m/s for 10 s, a U-turn 6 m across (its tip 103 m east), then
    /// west 6 m north of the way in. 0.2 s after the tip the receiver stands 8 m south of the way
    /// in for 0.8 s. The tip is the turn's apex, more than 30 m off the chord; from it no segment
    /// to a fix a second on passes within 10 m of the jump.
    static func hairpinWithAJump() -> [Location] {
        var fixes = (0...50).map { Track.fix(Double($0) * 0.2, east: Double($0) * 2, course: 90) }
        fixes.append(Track.fix(10.2, east: 102.1, north: 0.9, course: 45))
        fixes.append(Track.fix(10.4, east: 103, north: 3, course: 0))
        fixes += (0..<4).map { Track.fix(10.6 + Double($0) * 0.2, east: 101 - Double($0), north: -8, course: 315) }
        fixes += (0...62).map { Track.fix(11.4 + Double($0) * 0.2, east: 94 - Double($0) * 2, north: 6, course: 270) }
        return fixes
    }

    /// At 5 Hz: north at 25 m/s for 10 s, a sharp turn east at 250 m, and 0.8 s after it the
    /// fixes stop for 5 s (the gate rejected a burst of reflections); the first fix after them
    /// stands 100 m on to the north-east. When the corner is chosen (the turn, 10 s) no fix a
    /// second past it is held yet, and from it no segment to that fix passes within 10 m of the
    /// last fix before the gap (10.9 m); from the fix reached last before the cone emptied it does.
    static func cornerBeforeAGap() -> [Location] {
        var fixes = (0...50).map { Track.fix(Double($0) * 0.2, north: Double($0) * 5, speed: 25, course: 0) }
        fixes += (1...4).map { Track.fix(10 + Double($0) * 0.2, east: Double($0) * 5, north: 250, speed: 25, course: 90) }
        fixes += (0...20).map { Track.fix(16 + Double($0) * 0.2, east: 100 + Double($0) * 3.5, north: 350 + Double($0) * 3.5, speed: 25, course: 45) }
        return fixes
    }

    /// The seconds of the points the triggers keep of `fixes` (to the end), checked for what every
    /// case here must keep: each fix within 10 m of the track, no two points within `min-interval`.
    static func keptSeconds(_ fixes: [Location]) -> [Double] {
        let kept = MotionTriggersGapTests.kept(fixes)
        let times = kept.map { Track.start.seconds(to: $0.location.time) }
        let (beyond, farthest) = SimplificationFidelityTests.compliance(fixes, track: kept.map(\.location), tolerance: 10)
        #expect(beyond == 0, "the farthest fix \(farthest) m off the kept track: \(times)")
        #expect(zip(times, times.dropFirst()).allSatisfy { $1 - $0 >= 1 }, "\(times)")
        return times
    }

    @Test func aCornerWaitsForTheFixesAfterItWhenAGapFollows() {
        let times = Self.keptSeconds(Self.cornerBeforeAGap())
        // One point at the turn, from which the track reaches past the gap, and the last fix.
        #expect(times.count == 3 && times[1] >= 10 && times[1] <= 10.8, "\(times)")
    }

    @Test func aCornerWaitingIsKeptAtTheEndOfTheFixes() {
        // The fixes end with the last one before the gap: the corner waiting is kept, then the end.
        let fixes = Array(Self.cornerBeforeAGap().prefix(55))
        let kept = MotionTriggersGapTests.kept(fixes)
        #expect(kept.map(\.trigger) == [.first, .deviation, .final], "\(kept.map(\.location.time))")
        let (beyond, _) = SimplificationFidelityTests.compliance(fixes, track: kept.map(\.location), tolerance: 10)
        #expect(beyond == 0)
    }

    @Test func aReloadWhileACornerWaitsJudgesTheFixesAgain() {
        // The tolerance tightened to 8 m while the corner waits: every fix within 8 m of the track.
        let fixes = Self.cornerBeforeAGap()
        var configuration = FilterConfiguration()
        configuration.maxInterval = 600
        var triggers = MotionTriggers(configuration: configuration)
        var kept = fixes.prefix(55).flatMap { triggers.process($0) }
        #expect(triggers.heldFixes > 0)
        configuration.maxDeviation = 8
        triggers.configuration = configuration
        kept += fixes.dropFirst(55).flatMap { triggers.process($0) } + triggers.finish()
        let (beyond, farthest) = SimplificationFidelityTests.compliance(fixes, track: kept.map(\.location), tolerance: 8)
        #expect(beyond == 0, "the farthest fix \(farthest) m off the kept track: \(kept.map(\.location.time))")
    }

    @Test func anApexTheTrackCannotGoOnFromMovesBackToo() {
        let times = Self.keptSeconds(Self.hairpinWithAJump())
        // The point for the hairpin is at most `min-interval` before its tip, no later.
        #expect(times.contains { $0 >= 9.4 && $0 <= 10.4 }, "\(times)")
    }
}
