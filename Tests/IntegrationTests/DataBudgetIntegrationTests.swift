import AWSLocation
import Foundation
import Spool
import Synchronization
import Testing
import TrackingCore
import Uploader

/// `data-budget` against the emulator, with the wall clock set: the bytes the transport counted
/// stay within the day's share, and within the budget by the day's end.
@Suite struct DataBudgetIntegrationTests {
    typealias Helpers = UploaderIntegrationTests

    @Test func theDaysBytesStayUnderTheBudget() async throws {
        let setup = try await Helpers.setup("data-budget", positions: 400)
        defer { setup.emulator.stop() }
        let noon = FixTime(iso8601: "2026-11-30T12:00:00Z")!
        let wall = Mutex(noon)
        var configuration = Helpers.configuration()
        configuration.dataBudget = 40_000
        // One request at a time: requests in flight are reckoned as spent, so with four the
        // uploader would stop up to four requests short of the share, as the timing falls.
        configuration.maxInFlight = 1
        let uploader = Uploader(configuration: configuration, spool: setup.spool, client: setup.client,
                                wallClock: { wall.withLock { $0 } })
        let running = Task { await uploader.run() }
        // Noon: half the day's budget, and a tenth of it up front for full batches.
        try await Self.waitWhileSending(setup.client)
        let atNoon = setup.client.bytesOnTheWire
        let queuedAtNoon = try await setup.spool.statistics().queued
        #expect(atNoon <= 24_000, "\(atNoon) bytes by noon: within half of 40,000 and 4,000 up front")
        #expect(atNoon > 24_000 - 2 * 3_500, "and the share was used (\(atNoon) bytes), about a request short of it")
        #expect(uploader.statistics.bytesToday == atNoon, "status shows what the transport counted")
        #expect(queuedAtNoon > 0, "the rest waits in the spool")
        // A second before midnight: the whole budget, never more.
        wall.withLock { $0 = noon.adding(seconds: 12 * 3600 - 1) }
        uploader.update(configuration)
        try await Self.waitWhileSending(setup.client)
        let byMidnight = setup.client.bytesOnTheWire
        #expect(byMidnight > atNoon)
        #expect(byMidnight <= 40_000, "\(byMidnight) bytes in the day, budget 40,000")
        #expect(try await setup.spool.statistics().queued > 0, "nothing dropped: what did not fit waits for the next day")
        uploader.stop()
        await running.value
        let arrived = try await Helpers.arrived(setup.emulator)
        print("data budget: \(atNoon) bytes by noon, \(byMidnight) by midnight (budget 40,000), \(arrived.count) positions sent, "
              + "\(try await setup.spool.statistics().queued) waiting")
        #expect(arrived.count + (try await setup.spool.statistics().queued) == 400)
    }

    /// Until the byte count has moved and then stood still for two seconds.
    static func waitWhileSending(_ client: TrackerClient) async throws {
        let before = client.bytesOnTheWire
        for _ in 0..<100 where client.bytesOnTheWire == before { try await Task.sleep(for: .milliseconds(100)) }
        var last = -1
        while client.bytesOnTheWire != last {
            last = client.bytesOnTheWire
            try await Task.sleep(for: .seconds(2))
        }
    }
}
