import AWSLocation
import Foundation
import Spool
import Testing
import TrackingCore
import Uploader

/// Devices that share one account's quota (the emulator's `rps`), each with a backlog: the
/// uploaders lower their own rates on throttling and the backlogs drain without loss.
@Suite struct SharedQuotaTests {
    typealias Helpers = UploaderIntegrationTests

    @Test func devicesOnOneQuotaLowerTheirRatesAndDrainEverything() async throws {
        let directory = TestPaths.temporaryDirectory("shared-quota")
        let emulator = try await TrackerEmulator.start(directory: directory)
        defer { emulator.stop() }
        let quota = 4, devices = 3, backlog = 120
        try await emulator.configure(["rps": quota])
        var uploaders: [(Uploader, Spool, Helpers.Events)] = []
        for n in 0..<devices {
            let spool = try await Spool.open(.init(directory: directory.appendingPathComponent("d\(n)").path))
            try await spool.append(contentsOf: (0..<backlog).map(Helpers.location))
            let client = TrackerClient(region: "eu-west-1", endpoint: emulator.endpoint,
                                       credentials: StaticCredentialProvider(emulator.staticCredentials), transport: SocketTransport())
            var configuration = Helpers.configuration()
            configuration.deviceID = "truck-\(n)"
            let events = Helpers.Events()
            uploaders.append((Uploader(configuration: configuration, spool: spool, client: client) { events.append($0) }, spool, events))
        }
        let clock = ContinuousClock()
        let begin = clock.now
        let running = uploaders.map { uploader, _, _ in Task { await uploader.run() } }
        for (_, spool, _) in uploaders { #expect(try await Helpers.waitUntilDrained(spool, timeout: 90)) }
        let drained = (clock.now - begin).seconds
        for (uploader, _, _) in uploaders { uploader.stop() }
        for task in running { await task.value }

        let arrived = try await emulator.positions()
        let unique = Set(arrived.map { "\($0["DeviceId"] as? String ?? "?") \($0["SampleTime"] as? String ?? "?")" })
        #expect(unique.count == devices * backlog, "every position of every device arrived")
        #expect(arrived.count == unique.count, "no duplicates")
        let throttled = try await emulator.stat("throttled")
        let statistics = uploaders.map { $0.0.statistics }
        let requests = statistics.map(\.requests).reduce(0, +)
        #expect(statistics.map(\.throttledRequests).reduce(0, +) == throttled, "every throttled answer counted")
        let bound = Double(devices * backlog / 10) / Double(quota)
        print("shared quota: \(devices) devices x \(backlog) positions at \(quota) requests/s: drained in \(Int(drained)) s "
              + "(bound \(Int(bound)) s), \(throttled) of \(requests) requests throttled; rates now "
              + statistics.map { String(format: "%.2f", $0.requestRate) }.joined(separator: ", "))
        for (uploader, _, events) in uploaders {
            #expect(uploader.statistics.throttledRequests > 0, "each device met the quota")
            #expect(uploader.statistics.requestRate < 9.5, "and lowered its own rate")
            let said = events.all.filter { if case .throttled = $0 { true } else { false } }
            #expect(said.count == 1, "said once an episode, not once a request: \(said)")
            #expect(!events.all.contains { if case .failing = $0 { true } else { false } }, "throttling is not an outage")
        }
        // Each device alone at 9.5 requests/s against a quota of 4 for three would mostly be
        // throttled; lowering their rates keeps the throttled share to a fraction.
        // How long the drain takes against the bound is the fleet benchmark's figure (Benchmarks/run
        // fleet), measured alone on the machine; here the suite's other tests share the cores.
        #expect(Double(throttled) / Double(requests) < 0.35)
    }
}
