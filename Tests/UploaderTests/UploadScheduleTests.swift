@testable import AWSLocation
import Spool
import Testing
import TrackingCore
@testable import Uploader

/// The uploader's decisions with a manual clock: no sockets, no sleeps.
@Suite struct UploadScheduleTests {
    let t0 = ContinuousClock.now

    func at(_ seconds: Double) -> ContinuousClock.Instant { t0 + .milliseconds(Int64(seconds * 1000)) }

    @Test func idleWaitsTheIntervalAndAFullBatchGoesAtOnce() {
        var schedule = UploadSchedule()
        #expect(schedule.next(at: at(0), unsent: 0, active: 0, maxInFlight: 4, idleWait: .seconds(3600)) == .wait(.seconds(3600)))
        #expect(schedule.phase(at: at(0), unsent: 0, active: 0, maxInFlight: 4) == .idle)
        #expect(schedule.next(at: at(0), unsent: 10, active: 0, maxInFlight: 4, idleWait: .seconds(5)) == .look)
        schedule.batchGoes()
        #expect(schedule.next(at: at(0), unsent: 10, active: 4, maxInFlight: 4, idleWait: .seconds(5)) == .wait(.seconds(1)), "full")
        #expect(schedule.phase(at: at(0), unsent: 10, active: 4, maxInFlight: 4) == .full)
    }

    @Test func aPartialBatchWaitsUntilItsOldestFixIsIntervalOld() {
        var schedule = UploadSchedule()
        // The oldest fix is 2 s old with a 5 s interval: 3 s to go.
        let goes1 = schedule.partialBatchGoes(at: at(0), oldestAge: 2, interval: 5)

        #expect(!goes1)
        #expect(schedule.phase(at: at(1), unsent: 3, active: 0, maxInFlight: 4) == .waitingForCompany)
        #expect(schedule.next(at: at(1), unsent: 3, active: 0, maxInFlight: 4, idleWait: .seconds(5)) == .wait(.seconds(2)))
        #expect(schedule.next(at: at(3), unsent: 3, active: 0, maxInFlight: 4, idleWait: .seconds(5)) == .look)
        let goes2 = schedule.partialBatchGoes(at: at(3), oldestAge: 99, interval: 5)

        #expect(goes2, "due by the first look, whatever the clock says now")
        // A wrong system clock (fix "from the future") changes batching only: the wait is the interval at most.
        let goes3 = schedule.partialBatchGoes(at: at(10), oldestAge: -500, interval: 5)

        #expect(!goes3)
        #expect(schedule.next(at: at(10), unsent: 1, active: 0, maxInFlight: 4, idleWait: .seconds(5)) == .wait(.seconds(5)))
        // Emptied meanwhile: idle, and the next partial batch starts its own wait.
        _ = schedule.next(at: at(11), unsent: 0, active: 0, maxInFlight: 4, idleWait: .seconds(5))
        let goes4 = schedule.partialBatchGoes(at: at(12), oldestAge: 0, interval: 5)

        #expect(!goes4)
        #expect(schedule.next(at: at(12), unsent: 1, active: 0, maxInFlight: 4, idleWait: .seconds(5)) == .wait(.seconds(5)))
    }

    @Test func failuresBackOffAndASuccessEndsTheEpisode() {
        var schedule = UploadSchedule()
        let first = schedule.failed("HTTP 503", retryAfter: nil, misconfigured: false, at: at(0), unit: 0.999)
        #expect(first == .failing("HTTP 503", retryIn: 0.999), "said once, at the first failure")
        #expect(schedule.phase(at: at(0.5), unsent: 5, active: 0, maxInFlight: 4) == .paused)
        #expect(schedule.next(at: at(0.5), unsent: 5, active: 0, maxInFlight: 4, idleWait: .seconds(5)) == .wait(.milliseconds(499)))
        #expect(schedule.failed("HTTP 503", retryAfter: nil, misconfigured: false, at: at(1), unit: 0.999) == nil, "not said again")
        #expect(schedule.failures == 2)
        // Retry-After is a floor on the wait.
        _ = schedule.failed("throttled", retryAfter: 30, misconfigured: false, at: at(2), unit: 0)
        #expect(schedule.phase(at: at(31), unsent: 5, active: 0, maxInFlight: 4) == .paused)
        #expect(schedule.phase(at: at(32.1), unsent: 5, active: 0, maxInFlight: 4) == .batchDue)
        #expect(schedule.succeeded() == 3)
        #expect(schedule.succeeded() == nil, "no episode to end")
    }

    @Test func afterAFailureOneRequestProbesUntilOneSucceeds() {
        var schedule = UploadSchedule()
        _ = schedule.failed("HTTP 503", retryAfter: nil, misconfigured: false, at: at(0), unit: 0.5)
        #expect(schedule.next(at: at(1), unsent: 5, active: 0, maxInFlight: 4, idleWait: .seconds(5)) == .look, "the pause is over")
        #expect(schedule.phase(at: at(1), unsent: 5, active: 1, maxInFlight: 4) == .full, "one probe at a time")
        _ = schedule.succeeded()
        #expect(schedule.phase(at: at(1), unsent: 5, active: 1, maxInFlight: 4) == .batchDue, "then max-in-flight again")
    }

    @Test func requestsFailingInTheSameOutageCountOnce() {
        var schedule = UploadSchedule()
        // Four requests started at 0 s; the first fails at 0.2 s, the others just after.
        _ = schedule.failed("HTTP 503", retryAfter: nil, misconfigured: false, startedAt: at(0), at: at(0.2), unit: 0.5)
        for _ in 0..<3 { _ = schedule.failed("HTTP 503", retryAfter: nil, misconfigured: false, startedAt: at(0), at: at(0.25), unit: 0.5) }
        #expect(schedule.failures == 1)
        // A request started after that failure, failing too: the next round.
        _ = schedule.failed("HTTP 503", retryAfter: nil, misconfigured: false, startedAt: at(1), at: at(1.2), unit: 0.5)
        #expect(schedule.failures == 2)
    }

    @Test func misconfiguredIsSaidEachTimeAndRetriedSlowly() {
        var schedule = UploadSchedule(misconfiguredRetry: 60)
        #expect(schedule.failed("access denied", retryAfter: nil, misconfigured: true, at: at(0), unit: 0) == .misconfigured("access denied", retryIn: 60))
        #expect(schedule.phase(at: at(59), unsent: 5, active: 0, maxInFlight: 4) == .misconfigured)
        #expect(schedule.next(at: at(20), unsent: 5, active: 0, maxInFlight: 4, idleWait: .seconds(5)) == .wait(.seconds(10)), "woken every 10 s at most")
        #expect(schedule.phase(at: at(60), unsent: 5, active: 0, maxInFlight: 4) == .batchDue)
    }

    @Test func stoppingWinsOverEverything() {
        var schedule = UploadSchedule()
        _ = schedule.failed("HTTP 503", retryAfter: nil, misconfigured: false, at: at(0), unit: 0.9)
        schedule.stop()
        #expect(schedule.next(at: at(0), unsent: 5, active: 0, maxInFlight: 4, idleWait: .seconds(5)) == .stop)
        #expect(schedule.phase(at: at(0), unsent: 0, active: 4, maxInFlight: 4) == .stopping)
    }
}

@Suite struct UploaderPartsPureTests {
    static let start = FixTime(iso8601: "2026-12-01T08:00:00Z")!
    static func row(_ id: Int64, seconds: Double, east: Double = 0) -> SpooledPosition {
        SpooledPosition(id: id, location: Location(time: start.adding(seconds: seconds), mode: .threeD, latitude: 52.5, longitude: 13.4 + east)!, kept: nil)
    }

    @Test func theSpacingGuardLetsThroughWhatTheTrackerStoresAndRetriesWhatWentBefore() {
        var spacing = TrackerSpacingGuard(lastStored: Self.row(0, seconds: 0).location)
        let rows = [Self.row(1, seconds: 0), Self.row(2, seconds: 10), Self.row(3, seconds: 30), Self.row(4, seconds: 45), Self.row(5, seconds: 61)]
        let first = spacing.split(rows, filtering: .timeBased)
        #expect(first.kept.map(\.id) == [3, 5])
        #expect(first.withheld.map(\.id) == [1, 2, 4], "the one stored before the restart, and those within 30 s")
        // The same rows again (a retry after a failure): those let through go again.
        let again = spacing.split([Self.row(3, seconds: 30), Self.row(5, seconds: 61)], filtering: .timeBased)
        #expect(again.kept.map(\.id) == [3, 5])
    }

    @Test func theBacklogBehindTheLiveLaneIsJudgedByTheNewestPositionAsTheTrackerJudgesIt() {
        var spacing = TrackerSpacingGuard(lastStored: nil)
        // 0.001 degrees of longitude at 52.5 N: 68 m.
        let live = spacing.split([Self.row(10, seconds: 100, east: 0.0032), Self.row(11, seconds: 110, east: 0.005)], filtering: .distanceBased, live: true)
        #expect(live.kept.map(\.id) == [10, 11])
        let backlog = [Self.row(1, seconds: 0), Self.row(2, seconds: 10, east: 0.001), Self.row(3, seconds: 20, east: 0.002),
                       Self.row(4, seconds: 30, east: 0.0049)]
        let behind = spacing.split(backlog, filtering: .distanceBased)
        #expect(behind.kept.map(\.id) == [1, 2, 3], "each far from the newest position the tracker holds")
        #expect(behind.withheld.map(\.id) == [4], "7 m from the newest: the tracker would not store it")
        #expect(spacing.split([Self.row(2, seconds: 10, east: 0.001), Self.row(3, seconds: 20, east: 0.002)], filtering: .distanceBased).kept.map(\.id) == [2, 3],
                "a retry goes again")
        #expect(spacing.split([Self.row(11, seconds: 110, east: 0.005)], filtering: .distanceBased).kept.map(\.id) == [11],
                "the newest itself, released after a failure, goes again")
        let next = spacing.split([Self.row(12, seconds: 120, east: 0.0051), Self.row(13, seconds: 125, east: 0.006)], filtering: .distanceBased, live: true)
        #expect(next.kept.map(\.id) == [13])
        #expect(next.withheld.map(\.id) == [12])
    }

    @Test func aBatchAnswerSortsEachPosition() {
        let rows = (1...5).map { Self.row(Int64($0), seconds: Double($0)) }
        func error(_ n: Int, _ code: String) -> BatchItemError {
            BatchItemError(deviceID: "d", sampleTime: Self.start.adding(seconds: Double(n)), code: code, message: "\(code) \(n)")
        }
        let outcomes = TrackerDestination.outcomes(rows, itemErrors: [
            error(2, "ThrottlingError"), error(3, "ValidationError"), error(5, "ValidationError"), error(4, "AccessDeniedError"),
        ])
        #expect(outcomes == [.stored, .throttled, .refused(code: "ValidationError", message: "ValidationError 3"),
                             .refused(code: "AccessDeniedError", message: "AccessDeniedError 4"), .refused(code: "ValidationError", message: "ValidationError 5")])
        let outcome = BatchOutcome(rows, outcomes: outcomes)
        #expect(outcome.stored.map(\.id) == [1])
        #expect(outcome.retryLater.map(\.id) == [2])
        #expect(outcome.throttled, "a throttled position goes again, and says the quota is full")
        #expect(!BatchOutcome(rows, outcomes: [.stored, .retryLater]).throttled)
        #expect(outcome.refused.map(\.code) == ["AccessDeniedError", "ValidationError"])
        #expect(outcome.refused.last?.rows.map(\.id) == [3, 5])
        #expect(outcome.newestStored?.time == Self.start.adding(seconds: 1))
        #expect(BatchOutcome(rows, outcomes: [.stored]).retryLater.map(\.id) == [2, 3, 4, 5], "positions not answered for go again")
    }
}
