import AWSLocation
import Foundation
import Spool
import Testing
import TrackingCore
import Synchronization
import Uploader

/// Devices that share one account's quota (the emulator's `rps`), each with a backlog: the
/// uploaders lower their own rates on throttling and the backlogs drain without loss.
@Suite struct SharedQuotaTests {
    typealias Helpers = UploaderIntegrationTests
    typealias Device = (uploader: Uploader, spool: Spool, events: Helpers.Events, sends: TimedDestination)

    /// The tracker, with when each delivery began and whether the tracker stored all of it: when
    /// the device sent, on its own clock. The emulator's receipt stamps come from a Python thread
    /// that waits its turn for the interpreter, by a tenth of a second with the machine busy.
    final class TimedDestination: Destination, @unchecked Sendable {
        let tracker: TrackerDestination
        let sends = Mutex<[(began: ContinuousClock.Instant, stored: Bool)]>([])

        init(_ tracker: TrackerDestination) { self.tracker = tracker }

        var name: String { tracker.name }
        var bytesOnTheWire: Int { tracker.bytesOnTheWire }
        func limits(_ configuration: Uploader.Configuration) -> DestinationLimits { tracker.limits(configuration) }

        func deliver(_ batch: [SpooledPosition], _ configuration: Uploader.Configuration) async throws(DeliveryFailure) -> [PositionOutcome] {
            let began = ContinuousClock.now
            do {
                let outcomes = try await tracker.deliver(batch, configuration)
                sends.withLock { $0.append((began, outcomes.allSatisfy { $0 == .stored })) }
                return outcomes
            } catch {
                sends.withLock { $0.append((began, false)) }
                throw error
            }
        }

        /// Seconds between the starts of consecutive deliveries the tracker stored whole.
        var storedGaps: [Double] {
            let stored = sends.withLock { $0 }.filter(\.stored).map(\.began)
            return zip(stored, stored.dropFirst()).map { a, b in
                let elapsed = a.duration(to: b).components
                return Double(elapsed.seconds) + Double(elapsed.attoseconds) / 1e18
            }
        }
    }

    /// `devices` uploaders, each with `backlog` positions queued in its own spool, all against
    /// `emulator`; `quotaShare` as given.
    static func fleet(_ devices: Int, backlog: Int, quotaShare: Double = 0, in directory: URL,
                      emulator: TrackerEmulator) async throws -> [Device] {
        var fleet: [Device] = []
        for n in 0..<devices {
            let spool = try await Spool.open(.init(directory: directory.appendingPathComponent("d\(n)").path))
            try await spool.append(contentsOf: (0..<backlog).map(Helpers.location))
            let client = TrackerClient(region: "eu-west-1", endpoint: emulator.endpoint,
                                       credentials: StaticCredentialProvider(emulator.staticCredentials), transport: SocketTransport())
            var configuration = Helpers.configuration()
            configuration.deviceID = "truck-\(n)"
            configuration.quotaShare = quotaShare
            let events = Helpers.Events()
            let sends = TimedDestination(TrackerDestination(client: client))
            fleet.append((Uploader(configuration: configuration, spool: spool, destination: sends) { events.append($0) }, spool, events, sends))
        }
        return fleet
    }

    @Test func devicesOnOneQuotaLowerTheirRatesAndDrainEverything() async throws {
        let directory = TestPaths.temporaryDirectory("shared-quota")
        let emulator = try await TrackerEmulator.start(directory: directory)
        defer { emulator.stop() }
        let quota = 4, devices = 3, backlog = 120
        try await emulator.configure(["rps": quota])
        let uploaders = try await Self.fleet(devices, backlog: backlog, in: directory, emulator: emulator)
        let clock = ContinuousClock()
        let begin = clock.now
        let running = uploaders.map { uploader, _, _, _ in Task { await uploader.run() } }
        for (_, spool, _, _) in uploaders { #expect(try await Helpers.waitUntilDrained(spool, timeout: 90)) }
        let drained = (clock.now - begin).seconds
        for (uploader, _, _, _) in uploaders { uploader.stop() }
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
        for (uploader, _, events, _) in uploaders {
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

    /// With `quota-share`, each device sends at 90 % of its share from a random phase, keeps that
    /// rate however often it is throttled, and a throttled request goes again a moment later. The
    /// shares here add up to more than the quota (4 x 1.125 against 4 a second), so the window
    /// must throttle some; nothing is lost and no device sends faster than its share.
    @Test func devicesWithAQuotaShareKeepTheirRateAndSlideWhenThrottled() async throws {
        let directory = TestPaths.temporaryDirectory("quota-share")
        let emulator = try await TrackerEmulator.start(directory: directory)
        defer { emulator.stop() }
        let quota = 4, devices = 4, backlog = 80
        try await emulator.configure(["rps": quota])
        let uploaders = try await Self.fleet(devices, backlog: backlog, quotaShare: 1.25, in: directory, emulator: emulator)
        let running = uploaders.map { uploader, _, _, _ in Task { await uploader.run() } }
        for (_, spool, _, _) in uploaders { #expect(try await Helpers.waitUntilDrained(spool, timeout: 60)) }

        let arrived = try await emulator.positions()
        let unique = Set(arrived.map { "\($0["DeviceId"] as? String ?? "?") \($0["SampleTime"] as? String ?? "?")" })
        #expect(unique.count == devices * backlog, "every position of every device arrived")
        #expect(arrived.count == unique.count, "no duplicates")
        let throttled = try await emulator.stat("throttled")
        #expect(throttled > 0, "4.5 requests a second against a quota of 4: the window throttled some")
        for (uploader, _, events, _) in uploaders {
            #expect(uploader.statistics.requestRate == 1.125, "90 % of the share, never lowered")
            #expect(!events.all.contains { if case .throttled = $0 { true } else { false } }, "no rate was cut")
            #expect(!events.all.contains { if case .failing = $0 { true } else { false } }, "throttling is not an outage")
        }
        // One request a batch (one ReceivedTime each).
        var received: [String: Set<String>] = [:]
        for position in arrived {
            received[position["DeviceId"] as? String ?? "?", default: []].insert(position["ReceivedTime"] as? String ?? "?")
        }
        for (device, times) in received { #expect(times.count == backlog / 10, "\(device): one request a batch") }
        // Each device's accepted requests began an interval (0.889 s) apart or more, on its own
        // clock: a slide moves the phase, it never sends a request early. A request sent on the
        // old rhythm after a slide (0.05-0.4 s) would begin 0.49-0.84 s after the one before.
        // A delivery begins after its token is taken, by a batch read from the spool and a
        // task's hop: tens of milliseconds with the machine busy, so a late start shortens the
        // gap after it (0.841 s once, with the package tests beside this one; and measured on
        // the emulator's receipt stamps, 0.78 s). Each gap is held to the interval less 60 ms,
        // and their mean to the interval.
        for (uploader, _, _, sends) in uploaders {
            let gaps = sends.storedGaps
            #expect(gaps.count == backlog / 10 - 1)
            #expect(gaps.allSatisfy { $0 >= 1 / 1.125 - 0.06 }, "\(uploader.configuration.deviceID): accepted requests 1/1.125 s apart: \(gaps)")
            let mean: Double = gaps.reduce(0, +) / Double(max(1, gaps.count))
            #expect(mean >= 1 / 1.125 - 0.005, "\(uploader.configuration.deviceID): \(gaps)")
        }

        // A reload takes the share away (the rate adapts from max-request-rate) or sets it again.
        let (first, _, _, _) = uploaders[0]
        var adaptive = first.configuration
        adaptive.quotaShare = 0
        first.update(adaptive)
        #expect(first.statistics.requestRate == 9.5)
        adaptive.quotaShare = 0.5
        first.update(adaptive)
        #expect(first.statistics.requestRate == 0.45)
        for (uploader, _, _, _) in uploaders { uploader.stop() }
        for task in running { await task.value }
    }

    /// Shares that add up to several times the quota: each device gives its share up after most
    /// of its requests were throttled, says so once, and drains adapting its rate.
    @Test func aShareTheQuotaCannotGiveIsGivenUpWithAWarning() async throws {
        let directory = TestPaths.temporaryDirectory("quota-overrun")
        let emulator = try await TrackerEmulator.start(directory: directory)
        defer { emulator.stop() }
        let devices = 2, backlog = 60
        try await emulator.configure(["rps": 1])
        let uploaders = try await Self.fleet(devices, backlog: backlog, quotaShare: 5, in: directory, emulator: emulator)
        let running = uploaders.map { uploader, _, _, _ in Task { await uploader.run() } }
        for (_, spool, _, _) in uploaders { #expect(try await Helpers.waitUntilDrained(spool, timeout: 90)) }
        for (uploader, _, _, _) in uploaders { uploader.stop() }
        for task in running { await task.value }

        let arrived = try await emulator.positions()
        #expect(arrived.count == devices * backlog, "every position arrived once")
        for (uploader, _, events, _) in uploaders {
            let overruns = events.all.compactMap { if case let .quotaShareOverrun(share, _) = $0 { share } else { nil } }
            #expect(overruns == [5], "said once, with the share")
            #expect(uploader.statistics.quotaShare == nil, "given up")
            let description = events.all.first { if case .quotaShareOverrun = $0 { true } else { false } }?.description ?? ""
            #expect(description.contains("quota-share 5.0 requests/s is more than the account's quota leaves this box"))
        }
    }

    /// A 200 whose items were throttled took its place in the quota's window: under a share its
    /// token stays spent, so the device keeps to its share's interval (it would go again after
    /// each slide, several times an interval, if the token came back).
    @Test func itemsThrottledUnderAShareKeepTheDeviceToItsInterval() async throws {
        let directory = TestPaths.temporaryDirectory("quota-share-items")
        let emulator = try await TrackerEmulator.start(directory: directory)
        defer { emulator.stop() }
        try await emulator.configure(["item_errors": ["truck-0": "ThrottlingError"]])
        let device = try await Self.fleet(1, backlog: 30, quotaShare: 2, in: directory, emulator: emulator)[0]
        let running = Task { await device.uploader.run() }
        try await Task.sleep(for: .seconds(3))
        let requests = device.uploader.statistics.requests
        device.uploader.stop()
        await running.value
        // 1.8 requests/s from a random phase: at most 6 in 3 s (a slide a request would be 8-60).
        #expect(requests >= 3 && requests <= 6, "\(requests) requests in 3 s")
        #expect(device.uploader.statistics.throttledRequests == requests)
        #expect(device.uploader.statistics.quotaShare == 2, "fewer than 14 answers: the share holds")
    }
}
