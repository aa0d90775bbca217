import AWSLocation
import Foundation
import Spool
import Testing
import TrackingCore
import Uploader

/// While a backlog drains, the positions fixed now reach the tracker first.
@Suite struct LiveLaneTests {
    typealias Helpers = UploaderIntegrationTests

    @Test func livePositionsGoAheadOfTheBacklogWithinAboutTheInterval() async throws {
        let setup = try await Helpers.setup("live-lane", positions: 300)
        defer { setup.emulator.stop() }
        var configuration = Helpers.configuration()
        configuration.maxRequestRate = 2  // 30 requests of backlog: about 16 s
        let uploader = Uploader(configuration: configuration, spool: setup.spool, client: setup.client)
        let running = Task { await uploader.run() }
        try await Task.sleep(for: .seconds(2))
        var live: [FixTime] = []
        for n in 0..<12 {
            let now = SystemClock.now()
            live.append(now)
            try await setup.spool.append(Location(time: now, mode: .threeD, latitude: 52.6 + Double(n) * 1e-4, longitude: 13.5, speed: 12)!)
            try await Task.sleep(for: .milliseconds(500))
        }
        try await Task.sleep(for: .seconds(3))
        let queuedAfterLive = try await setup.spool.statistics().queued
        #expect(try await Helpers.waitUntilDrained(setup.spool, timeout: 60))
        uploader.stop()
        await running.value

        let arrived = try await setup.emulator.positions()
        let received = Dictionary(arrived.compactMap { p -> (String, FixTime)? in
            guard let sample = Helpers.sampleTime(p), let at = (p["ReceivedTime"] as? String).flatMap(FixTime.init(iso8601:)) else { return nil }
            return (sample, at)
        }, uniquingKeysWith: { first, _ in first })
        #expect(arrived.count == 312, "every position once")
        let latencies = live.map { time in received[time.iso8601].map { time.seconds(to: $0) } ?? .infinity }
        print("live lane: latencies " + latencies.map { String(format: "%.2f", $0) }.joined(separator: " ")
              + " s; \(queuedAfterLive) of the backlog still queued 3 s after the last live fix")
        #expect(queuedAfterLive > 0, "the backlog was still draining behind them")
        // upload-interval 0.5 s, then the next token at 1.9 requests/s.
        #expect(latencies.allSatisfy { $0 <= 0.5 + 2.5 }, "\(latencies)")
        let lastBacklog = (0..<300).compactMap { received[Helpers.location($0).time.iso8601] }.max()!
        #expect(live.compactMap { received[$0.iso8601] }.allSatisfy { $0 < lastBacklog }, "ahead of the backlog")
    }
}
