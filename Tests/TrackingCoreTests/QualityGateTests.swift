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
}
