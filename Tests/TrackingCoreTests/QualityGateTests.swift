import Foundation
import Testing
import TrackingCore

@Suite struct QualityGateTests {
    var gate = QualityGate(configuration: FilterConfiguration())

    @Test mutating func rejectsAFixBelowTheMinimumMode() {
        var configuration = FilterConfiguration()
        configuration.minMode = .threeD
        gate = QualityGate(configuration: configuration)
        #expect(gate.check(Track.fix(0, mode: .twoD), clock: Track.synced) == .mode)
        #expect(gate.check(Track.fix(1, mode: .threeD), clock: Track.synced) == nil)
    }

    @Test mutating func rejectsPoorAccuracyButPassesUnknownAccuracy() {
        #expect(gate.check(Track.fix(0, accuracy: 50.5), clock: Track.synced) == .accuracy)
        #expect(gate.check(Track.fix(1, accuracy: 50), clock: Track.synced) == nil)
        #expect(gate.check(Track.fix(2, east: 20, accuracy: nil), clock: Track.synced) == nil)
    }

    /// The receiver's own (GST) accuracy is reported; the gate judges by gpsd's, which a GST
    /// a third of it would otherwise let pass fixes 12-16 m off the road.
    @Test mutating func judgesByTheFiltersAccuracyNotTheOneReported() {
        var fix = Track.fix(0, accuracy: 20)
        fix.filterAccuracy = 60
        #expect(gate.check(fix, clock: Track.synced) == .accuracy)
        var next = Track.fix(1, accuracy: 60)
        next.filterAccuracy = 40
        #expect(gate.check(next, clock: Track.synced) == nil)
    }

    @Test mutating func rejectsDuplicateAndBackwardsTimes() {
        #expect(gate.check(Track.fix(5), clock: Track.synced) == nil)
        #expect(gate.check(Track.fix(5), clock: Track.synced) == .stale)
        #expect(gate.check(Track.fix(4), clock: Track.synced) == .stale)
        #expect(gate.check(Track.fix(6, east: 10), clock: Track.synced) == nil)
    }

    @Test mutating func rejectsFixesFromTheFutureOnlyWithASynchronizedClock() {
        let ahead = Track.fix(3600 + 301)
        #expect(gate.check(ahead, clock: Track.synced) == .future)
        let unsynced = ClockReading(now: Track.synced.now, synchronized: false)
        #expect(gate.check(ahead, clock: unsynced) == nil)
        #expect(gate.check(Track.fix(3600 + 400, east: 10), clock: Track.synced) == .future)
    }

    @Test mutating func rejectsWeekRolloverDates() {
        // A receiver with a week-rollover bug reports 1024 weeks (19.6 years) in the past.
        let rolledOver = Location(
            time: Track.start.adding(seconds: -1024 * 7 * 86_400), mode: .threeD, latitude: 52.5, longitude: 13.4)!
        #expect(gate.check(rolledOver, clock: Track.synced) == .tooOld)
        let lastYear = Location(time: Track.start.adding(seconds: -365 * 86_400), mode: .threeD, latitude: 52.5, longitude: 13.4)!
        #expect(gate.check(lastYear, clock: Track.synced) == nil, "a recorded log of last year still replays")
    }

    @Test mutating func rejectsNullIsland() {
        let zero = Location(time: Track.start, mode: .threeD, latitude: 0, longitude: 0)!
        #expect(gate.check(zero, clock: Track.synced) == .coordinates)
        let equator = Location(time: Track.start.adding(seconds: 1), mode: .threeD, latitude: 0, longitude: 0.0001)!
        #expect(gate.check(equator, clock: Track.synced) == nil)
    }

    @Test mutating func rejectsAnOutlierJump() {
        #expect(gate.check(Track.fix(0), clock: Track.synced) == nil)
        #expect(gate.check(Track.fix(1, east: 20), clock: Track.synced) == nil)
        #expect(gate.check(Track.fix(2, east: 2000), clock: Track.synced) == .outlier)
        #expect(gate.check(Track.fix(3, east: 40), clock: Track.synced) == nil, "back on track after one wild fix")
        #expect(gate.lastAccepted?.time == Track.start.adding(seconds: 3))
    }

    @Test mutating func acceptsANewPlaceConfirmedByConsecutiveFixes() {
        // A ferry crossing without fixes, then the receiver reports the far shore.
        #expect(gate.check(Track.fix(0), clock: Track.synced) == nil)
        #expect(gate.check(Track.fix(10, east: 50_000), clock: Track.synced) == .outlier)
        #expect(gate.check(Track.fix(11, east: 50_010), clock: Track.synced) == .outlier)
        #expect(gate.check(Track.fix(12, east: 50_020), clock: Track.synced) == nil)
        #expect(gate.check(Track.fix(13, east: 50_030), clock: Track.synced) == nil)
    }

    @Test mutating func scatteredOutliersDoNotConfirmEachOther() {
        #expect(gate.check(Track.fix(0), clock: Track.synced) == nil)
        #expect(gate.check(Track.fix(1, east: 5000), clock: Track.synced) == .outlier)
        #expect(gate.check(Track.fix(2, east: -5000), clock: Track.synced) == .outlier)
        #expect(gate.check(Track.fix(3, north: 5000), clock: Track.synced) == .outlier)
        #expect(gate.check(Track.fix(4, east: 30), clock: Track.synced) == nil)
    }
}

@Suite struct QualityGateTimelineTests {
    @Test func followsTheReceiverWhenItsTimeIsRebasedBackwards() {
        var chain = FilterChain(configuration: FilterConfiguration())
        let unsynced = ClockReading(now: Track.synced.now, synchronized: false)
        // A fix a day ahead got through (clock unsynchronized), then the receiver keeps to today.
        #expect(chain.process(Track.fix(0), clock: unsynced).rejection == nil)
        #expect(chain.process(Track.fix(86_400 + 1, east: 5), clock: unsynced).rejection == nil)
        var rejections: [RejectionReason?] = []
        var kept = 0
        for n in 2..<40 {
            let decision = chain.process(Track.fix(Double(n), east: Double(n) * 10, speed: 10), clock: unsynced)
            rejections.append(decision.rejection)
            kept += decision.kept.count
        }
        let config = FilterConfiguration()
        #expect(rejections.prefix(config.outlierConfirmations - 1).allSatisfy { $0 == .stale })
        #expect(rejections.dropFirst(config.outlierConfirmations - 1).allSatisfy { $0 == nil }, "\(rejections)")
        #expect(kept >= 1, "the track starts again on the new time")
        #expect(chain.gate.timelineRestarts == 1)
    }

    @Test func aFixHeldWhenTheTimeIsRebasedEndsTheOldTrackNotTheNewOne() {
        var chain = FilterChain(configuration: FilterConfiguration())
        let unsynced = ClockReading(now: Track.synced.now, synchronized: false)
        // East at 10 m/s a day ahead; the last of it 13 m north, held; then the receiver keeps to today.
        var kept: [KeptLocation] = []
        for n in 0...10 { kept += chain.process(Track.fix(86_400 + Double(n), east: Double(n) * 10), clock: unsynced).kept }
        let held = Track.fix(86_400 + 11, east: 110, north: 13)
        kept += chain.process(held, clock: unsynced).kept
        #expect(chain.gate.heldFixes == 1)
        for n in 0..<40 { kept += chain.process(Track.fix(Double(n), east: Double(n) * 10), clock: unsynced).kept }
        #expect(chain.gate.timelineRestarts == 1)
        // The new track starts at a fix of the new time, not at the held one.
        let starts = kept.filter { $0.trigger == .first }.map(\.location.time)
        #expect(starts.count == 2 && starts.last.map { $0 < Track.start.adding(seconds: 86_400) } == true, "\(starts)")
    }
}

/// Multipath excursions: jumps the receiver's own velocity does not explain.
@Suite struct ExcursionTests {
    /// Each fix's fate: rejected at once, or held and then recalled (an outlier too).
    func reasons(_ fixes: [Location]) -> [RejectionReason?] {
        var gate = QualityGate(configuration: FilterConfiguration())
        var reasons: [RejectionReason?] = []
        for fix in fixes {
            let verdict = gate.judge(fix, clock: Track.synced)
            let recalled = Set(verdict.recalled.map(\.time))
            reasons = zip(fixes, reasons).map { recalled.contains($0.time) ? .outlier : $1 } + [verdict.rejection]
        }
        return reasons
    }

    @Test func aJumpAsideThatComesBackIsRejectedWhileItLasts() {
        // East at 10 m/s; seconds 10-13 are 20 m north of the road.
        let fixes = (0...20).map { Track.fix(Double($0), east: Double($0) * 10, north: (10...13).contains($0) ? 20 : 0) }
        let rejected = reasons(fixes).enumerated().filter { $0.element != nil }.map(\.offset)
        #expect(rejected == [10, 11, 12, 13])
        #expect(reasons(fixes)[10] == .outlier)
    }

    @Test func anExcursionLastsUntilTheFixesAreBackNotMerelyUnderTheJumpThatBeganIt() {
        // East at 10 m/s, 1 Hz: second 10 jumps 20 m north, seconds 11-14 stay 14 m north (less
        // than the jump limit, more than a receiver's wander), then back on the road.
        let fixes = (0...20).map { Track.fix(Double($0), east: Double($0) * 10, north: $0 == 10 ? 20 : (11...14).contains($0) ? 14 : 0) }
        let rejected = reasons(fixes).enumerated().filter { $0.element != nil }.map(\.offset)
        #expect(rejected == [10, 11, 12, 13, 14])
    }

    @Test func aReflectionSmallerThanAJumpIsRejectedOnceTheFixesComeBack() {
        // East at 10 m/s, 1 Hz: seconds 10-12 are 13 m north, less than the jump limit (a
        // receiver's noise moves a fix that far now and then), and second 13 is back on the road.
        let fixes = (0...20).map { Track.fix(Double($0), east: Double($0) * 10, north: (10...12).contains($0) ? 13 : 0) }
        let rejected = reasons(fixes).enumerated().filter { $0.element != nil }.map(\.offset)
        #expect(rejected == [10, 11, 12])
        // Held, not passed, until second 13 says what they were.
        var gate = QualityGate(configuration: FilterConfiguration())
        let verdicts = fixes.map { gate.judge($0, clock: Track.synced) }
        #expect(verdicts[10...12].allSatisfy { !$0.passes && $0.released.isEmpty && $0.rejection == nil })
        #expect(verdicts[13].recalled.map(\.time) == fixes[10...12].map(\.time))
        #expect(verdicts[13].passes && verdicts[13].released.isEmpty)
        #expect(gate.heldFixes == 0)
    }

    @Test func aSmallOffsetThatLastsIsPassedAfterTheLongestExcursion() {
        // From second 10 on, 12 m north for good: held from second 10, all passed at second 18.
        let fixes = (0...25).map { Track.fix(Double($0), east: Double($0) * 10, north: $0 >= 10 ? 12 : 0) }
        #expect(reasons(fixes).allSatisfy { $0 == nil })
        var gate = QualityGate(configuration: FilterConfiguration())
        let passed = fixes.map { gate.passing($0, clock: Track.synced).map(\.time) }
        #expect(passed[10..<18].allSatisfy { $0.isEmpty })
        #expect(passed[18] == fixes[10...18].map(\.time))
        #expect(passed.joined().elementsEqual(fixes.map(\.time)), "every fix passes, once, in time order")
    }

    @Test func fixesBackOnlyAfterTheLongestExcursionDoNotRecallTheHeldOnes() {
        // Seconds 10-12 are 13 m north, 13-17 too poor to judge, and second 18 is back on the
        // road: 8 s after the first held fix, which had passed by then.
        let fixes = (0...20).map { n in
            Track.fix(Double(n), east: Double(n) * 10, north: (10...12).contains(n) ? 13 : 0, accuracy: (13...17).contains(n) ? 99 : 5)
        }
        #expect(reasons(fixes).enumerated().filter { $0.element != nil }.map(\.offset) == Array(13...17))
        var gate = QualityGate(configuration: FilterConfiguration())
        let passed = fixes.map { gate.passing($0, clock: Track.synced).map(\.time) }
        #expect(passed[18] == fixes[10...12].map(\.time) + [fixes[18].time])
    }

    @Test func aFixBackAfterFixesTooPoorToJudgeRecallsTheHeldOneItIsNearerTheRoadThan() {
        // East at 10 m/s, 1 Hz: second 10 is 10.5 m north (a suspect), seconds 11-14 too poor to
        // judge, and second 15 back on the road. Five seconds on, the road's place and the
        // suspect's way are both within a receiver's noise of it (12 m and 11.5 m), but it is on
        // the one and 10.5 m from the other.
        let fixes = (0...20).map { n in
            Track.fix(Double(n), east: Double(n) * 10, north: n == 10 ? 10.5 : 0, accuracy: (11...14).contains(n) ? 99 : 5)
        }
        #expect(reasons(fixes).enumerated().filter { $0.element != nil }.map(\.offset) == Array(10...14))
        #expect(reasons(fixes)[10] == .outlier)
        var gate = QualityGate(configuration: FilterConfiguration())
        let verdicts = fixes.map { gate.judge($0, clock: Track.synced) }
        #expect(verdicts[15].recalled.map(\.time) == [fixes[10].time])
        #expect(verdicts[15].passes && verdicts[15].released.isEmpty)
    }

    @Test func theFixesHeldWhenTheStreamStopsAreReleased() {
        var gate = QualityGate(configuration: FilterConfiguration())
        let fixes = (0...11).map { Track.fix(Double($0), east: Double($0) * 10, north: $0 == 11 ? 12 : 0) }
        #expect(fixes.map { gate.passing($0, clock: Track.synced).count } == Array(repeating: 1, count: 11) + [0])
        #expect(gate.release() == [fixes[11]])
        #expect(gate.heldFixes == 0)
    }

    @Test func aTurnTheReckoningCannotFollowAndAParkedWanderAreNotHeld() {
        // East at 20 m/s, then a roundabout's entry: 80 degrees in a second, 12 m from where the
        // mean of the two velocities puts the fix.
        var gate = QualityGate(configuration: FilterConfiguration())
        for n in 0...10 { _ = gate.judge(Track.fix(Double(n), east: Double(n) * 20, speed: 20), clock: Track.synced) }
        let entry = Track.fix(11, east: 200, north: -12, speed: 20, course: 170)
        #expect(gate.passing(entry, clock: Track.synced) == [entry])
        // Parked: the fixes wander 10 m with no velocity to reckon by.
        var parked = QualityGate(configuration: FilterConfiguration())
        let wander = (0...6).map { Track.fix(Double($0), east: $0 % 2 == 0 ? 0 : 10, speed: 0) }
        #expect(wander.map { parked.passing($0, clock: Track.synced).count } == Array(repeating: 1, count: 7))
    }

    @Test func atTenHertzAJumpTooFastToBeDrivenBeginsAnExcursion() {
        // East at 17.5 m/s, 10 Hz: from second 10 the fixes are 14 m north for 4 s. The first is
        // 140 m/s from the fix before it (an impossible speed); the rest are less than the jump
        // limit from where the velocity puts them, and were taken for the road (a random road of
        // our own: a kept point 15.8 m off the true path).
        let fixes = (0...200).map { n -> Location in
            let second = Double(n) / 10
            return Track.fix(second, east: second * 17.5, north: (100..<140).contains(n) ? 14 : 0, speed: 17.5)
        }
        let rejected = reasons(fixes).enumerated().filter { $0.element != nil }.map(\.offset)
        #expect(rejected == Array(100..<140))
    }

    @Test func atTenHertzAReflectionTooFarToBeDrivenToIsNotTakenForANewPlace() {
        // East at 22 m/s, 10 Hz: from second 10 the fixes are 30 m north for 3 s. Each is more
        // than 100 m/s from the last fix that passed until the vehicle has driven on; three of
        // them agreeing were taken for a new place, and the road after it for an excursion.
        let fixes = (0...200).map { n -> Location in
            let second = Double(n) / 10
            return Track.fix(second, east: second * 22, north: (100..<130).contains(n) ? 30 : 0, speed: 22)
        }
        let rejected = reasons(fixes).enumerated().filter { $0.element != nil }.map(\.offset)
        #expect(rejected == Array(100..<130))
        // 300 m aside is no reflection: the receiver's new place, followed once three fixes agree.
        let moved = (0...40).map { n -> Location in
            let second = Double(n) / 10
            return Track.fix(second, east: second * 22, north: n >= 10 ? 300 : 0, speed: 22)
        }
        #expect(reasons(moved).enumerated().filter { $0.element != nil }.map(\.offset) == [10, 11])
    }

    @Test func theRoadAfterATurnTakenDuringAnExcursionIsFoundAtOnce() {
        // East at 15 m/s, 1 Hz; second 10 jumps 20 m aside, and while the fixes are off the
        // vehicle takes a ramp's 90 degrees left in 6 s, its course reported each second; from
        // second 17 on the fixes are back on the road, heading north.
        let speed = 15.0, radius = 15.0 * 6 / (.pi / 2)
        let fixes = (0...25).map { n -> Location in
            let t = Double(n)
            let angle = min(max(t - 10, 0), 6) * speed / radius
            var east = min(t, 10) * speed + radius * sin(angle)
            var north = radius * (1 - cos(angle)) + max(t - 16, 0) * speed
            if (10...16).contains(n) { (east, north) = (east + 14, north - 14) }
            if n == 10 { north -= 10 }
            return Track.fix(t, east: east, north: north, speed: speed, course: 90 - angle * 180 / .pi)
        }
        let rejected = reasons(fixes).enumerated().filter { $0.element != nil }.map(\.offset)
        #expect(rejected == Array(10...16))
    }

    @Test func anOffsetThatLastsIsFollowedAfterTheLongestExcursion() {
        // From second 10 on, 30 m north for good (the receiver had been wrong before).
        let fixes = (0...30).map { Track.fix(Double($0), east: Double($0) * 10, north: $0 >= 10 ? 30 : 0) }
        let rejected = reasons(fixes).enumerated().filter { $0.element != nil }.map(\.offset)
        #expect(rejected == Array(10..<18), "8 s of it, then followed")
    }

    @Test func turnsBrakingAndGapsAreNotExcursions() {
        // A 90-degree turn of radius 20 m at 8 m/s, its course reported each second.
        var fixes: [Location] = []
        for n in 0...12 {
            let angle = Double(n) * 8 / 20
            fixes.append(Track.fix(Double(n), east: 20 * sin(angle), north: 20 - 20 * cos(angle), speed: 8,
                                   course: (90 - angle * 180 / .pi + 360).truncatingRemainder(dividingBy: 360)))
        }
        #expect(reasons(fixes).allSatisfy { $0 == nil })
        // Braking from 15 m/s to a stop, then parked drift of 4 m.
        var speed = 15.0, east = 0.0
        var braking: [Location] = []
        for n in 0...10 {
            braking.append(Track.fix(Double(n), east: east, speed: speed))
            east += max(0, speed - 1.5)
            speed = max(0, speed - 3)
        }
        braking.append(Track.fix(11, east: east + 4, speed: 0))
        #expect(reasons(braking).allSatisfy { $0 == nil })
        // A tunnel: 40 s without fixes, then out 300 m on at a new course.
        let tunnel = [Track.fix(0), Track.fix(1, east: 10), Track.fix(41, east: 250, north: 150, course: 0)]
        #expect(reasons(tunnel).allSatisfy { $0 == nil })
        // Without a velocity the check does not apply.
        #expect(reasons([Track.fix(0, speed: nil), Track.fix(1, east: 40, speed: nil)]).allSatisfy { $0 == nil })
    }
}
