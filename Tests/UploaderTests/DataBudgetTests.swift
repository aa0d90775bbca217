import Testing
import TrackingCore
import Uploader

/// `data-budget` with the wall clock passed in.
@Suite struct DataBudgetTests {
    static let midnight = FixTime(iso8601: "2026-12-01T00:00:00Z")!
    static func at(hours: Double) -> FixTime { midnight.adding(seconds: hours * 3600) }

    @Test func noBudgetNeverWaits() {
        var budget = DataBudget()
        budget.record(total: 10_000_000, at: Self.at(hours: 1))
        #expect(budget.wait(full: false, at: Self.at(hours: 1)) == nil)
        #expect(budget.spent(at: Self.at(hours: 1)) == 10_000_000, "still counted, for status")
    }

    @Test func aDayIsSpentEvenlyWithATenthUpFrontForFullBatches() {
        var budget = DataBudget(bytesPerDay: 240_000)  // 10,000 an hour, 24,000 up front
        budget.record(total: 50_000, at: Self.at(hours: 6))  // one request of 50,000: the reckoning for the next
        // At 06:00 the even share is 60,000: the next request (50,000 more) would reach 100,000.
        let partial = budget.wait(full: false, at: Self.at(hours: 6))
        #expect(partial.map { abs($0 - 4 * 3600) < 1 } == true, "a partial batch waits until 10:00: \(String(describing: partial))")
        let full = budget.wait(full: true, at: Self.at(hours: 6))
        #expect(full.map { abs($0 - 1.6 * 3600) < 1 } == true, "a full batch may use the tenth up front: until 07:36: \(String(describing: full))")
        #expect(budget.wait(full: true, at: Self.at(hours: 8)) == nil)
        #expect(budget.wait(full: true, at: Self.at(hours: 8), inFlight: 1) != nil, "a request in flight is reckoned as spent")
        #expect(budget.wait(full: false, at: Self.at(hours: 10)) == nil)
    }

    @Test func theWholeBudgetSpentWaitsForTheNextUTCDay() {
        var budget = DataBudget(bytesPerDay: 100_000)
        budget.record(total: 1_000, at: Self.at(hours: 23))
        budget.record(total: 99_000, at: Self.at(hours: 23))  // 99,000 spent, the last request 98,000
        let wait = budget.wait(full: true, at: Self.at(hours: 23))
        #expect(wait.map { abs($0 - 3600) < 1 } == true, "until midnight UTC: \(String(describing: wait))")
        #expect(budget.spent(at: Self.at(hours: 24.5)) == 0, "a new day")
        #expect(budget.nextRequest == 98_000)
        for total in stride(from: 100_000, through: 107_000, by: 1_000) { budget.record(total: total, at: Self.at(hours: 24.5)) }
        #expect(budget.nextRequest == 1_000, "reckoned by the last eight requests, not by one large one long ago")
        #expect(budget.wait(full: false, at: Self.at(hours: 24.5)) != nil, "8,000 spent half an hour in: past the even share (2,083)")
        #expect(budget.wait(full: true, at: Self.at(hours: 24.5)) == nil, "within the tenth up front (12,083)")
        #expect(budget.spent(at: Self.at(hours: 24.5)) == 8_000, "what the new day spent, from the transport's running total")
    }

    @Test func aRestartTakesUpTheDaysSpendAndANewDayDropsIt() {
        var budget = DataBudget(bytesPerDay: 100_000)
        budget.resume(spent: 99_500, asOf: Self.at(hours: 20))
        #expect(budget.spent(at: Self.at(hours: 21)) == 99_500)
        #expect(budget.wait(full: true, at: Self.at(hours: 21)) != nil, "the budget spent before the restart still counts")
        budget.record(total: 300, at: Self.at(hours: 21))
        #expect(budget.spent(at: Self.at(hours: 21)) == 99_800, "the new run's bytes on top")
        var yesterday = DataBudget(bytesPerDay: 100_000)
        yesterday.resume(spent: 99_500, asOf: Self.at(hours: -1))
        yesterday.record(total: 300, at: Self.at(hours: 1))
        #expect(yesterday.spent(at: Self.at(hours: 1)) == 300, "yesterday's spend is not today's")
    }
}
