import AWSLocation
import Foundation
import Spool
import Synchronization
import Testing
import TrackingCore
import Uploader

/// The uploader against the project's emulator with injected faults.
@Suite struct UploaderIntegrationTests {
    static let start = FixTime(iso8601: "2026-11-30T08:00:00Z")!

    static func location(_ n: Int) -> Location {
        Location(time: start.adding(seconds: Double(n)), mode: .threeD, latitude: 52.5 + Double(n) * 1e-5,
                 longitude: 13.4 + Double(n) * 1e-5, course: 90, speed: 10, horizontalAccuracy: 4)!
    }

    final class Events: @unchecked Sendable {
        let list = Mutex<[UploaderEvent]>([])
        func append(_ event: UploaderEvent) { list.withLock { $0.append(event) } }
        var all: [UploaderEvent] { list.withLock { $0 } }
    }

    struct Setup {
        var emulator: TrackerEmulator
        var spool: Spool
        var spoolDirectory: String
        var client: TrackerClient
    }

    static func setup(_ label: String, positions: Int, credentials: Credentials? = nil) async throws -> Setup {
        let directory = TestPaths.temporaryDirectory(label)
        let emulator = try await TrackerEmulator.start(directory: directory)
        let spoolDirectory = directory.appendingPathComponent("state").path
        let spool = try await Spool.open(.init(directory: spoolDirectory))
        try await spool.append(contentsOf: (0..<positions).map(location))
        let client = TrackerClient(region: "eu-west-1", endpoint: emulator.endpoint,
                                   credentials: StaticCredentialProvider(credentials ?? emulator.staticCredentials), transport: SocketTransport())
        return Setup(emulator: emulator, spool: spool, spoolDirectory: spoolDirectory, client: client)
    }

    static func configuration() -> Uploader.Configuration {
        var c = Uploader.Configuration(tracker: "fleet", deviceID: "truck-9")
        c.uploadInterval = 0.5
        c.retry = RetryPolicy(base: 0.2, cap: 2)
        c.misconfiguredRetry = 1
        c.progressInterval = 2
        c.stopDeadline = 5
        return c
    }

    static func waitUntilDrained(_ spool: Spool, timeout: Double) async throws -> Bool {
        let deadline = Date().addingTimeInterval(timeout)
        while Date() < deadline {
            if try await spool.statistics().queued == 0 { return true }
            try await Task.sleep(for: .milliseconds(100))
        }
        return false
    }

    /// The fix times the emulator stored, in arrival order, written as `FixTime.iso8601` (the
    /// wire leaves `.000` off a whole second).
    static func arrived(_ emulator: TrackerEmulator) async throws -> [String] {
        try await emulator.positions().compactMap(sampleTime)
    }

    /// A stored position's `SampleTime`, written as `FixTime.iso8601`.
    static func sampleTime(_ position: [String: Any]) -> String? {
        (position["SampleTime"] as? String).flatMap(FixTime.init(iso8601:))?.iso8601
    }

    @Test func aPartialBatchGoesWhenItsOldestFixIsUploadIntervalOld() async throws {
        let setup = try await Self.setup("uploader-interval", positions: 0)
        defer { setup.emulator.stop() }
        let wall = Self.start.adding(seconds: 1000)
        var configuration = Self.configuration()
        configuration.uploadInterval = 3
        let uploader = Uploader(configuration: configuration, spool: setup.spool, client: setup.client, wallClock: { wall })
        let running = Task { await uploader.run() }
        let clock = ContinuousClock()

        // A fix of this instant waits the whole interval for company.
        let fresh = Self.location(1000)
        var begin = clock.now
        try await setup.spool.append(fresh) // the spool tells the uploader
        try await Task.sleep(for: .milliseconds(1500))
        #expect(try await Self.arrived(setup.emulator).isEmpty, "sent before the interval")
        while try await Self.arrived(setup.emulator).isEmpty, clock.now - begin < .seconds(10) {
            try await Task.sleep(for: .milliseconds(50))
        }
        let waited = clock.now - begin
        // Not before the interval, and not a second interval later (the arrival is polled over HTTP
        // on a machine running the whole suite, so the upper bound has room).
        #expect(waited >= .milliseconds(2900) && waited < .milliseconds(5900), "\(waited)")

        // A fix the filter held back for 2.5 s has used most of its interval already.
        let held = Self.location(1000 - 2)
        let heldTime = Self.start.adding(seconds: 997.5)
        begin = clock.now
        try await setup.spool.append(Location(time: heldTime, mode: held.mode, latitude: held.latitude, longitude: held.longitude)!)
        while try await Self.arrived(setup.emulator).count < 2, clock.now - begin < .seconds(10) {
            try await Task.sleep(for: .milliseconds(50))
        }
        let heldWait = clock.now - begin
        // About 0.5 s after it was stored; a whole interval (3 s) would mean its age was ignored.
        #expect(heldWait < .milliseconds(2800), "\(heldWait): the held fix should go about 0.5 s after it was stored")
        #expect(try await Self.arrived(setup.emulator) == [fresh.time.iso8601, heldTime.iso8601])
        uploader.stop()
        await running.value
    }

    @Test func everyPositionArrivesThroughFaultsAndPoisonIsSetAside() async throws {
        let count = 400
        let setup = try await Self.setup("uploader-faults", positions: count)
        defer { setup.emulator.stop() }
        let poisonedTimes = [17, 123, 301].map { Self.location($0).time }
        let poisoned = poisonedTimes.map(\.iso8601)
        // The emulator matches the text on the wire.
        try await setup.emulator.configure([
            "latency_ms": 200, "error_rate": 0.2, "item_error_rate": 0.2, "drop_rate": 0.05, "lose_rate": 0.01,
            "rps": 5, "poison_items": poisonedTimes.map(\.wireISO8601),
        ])
        let events = Events()
        let uploader = Uploader(configuration: Self.configuration(), spool: setup.spool, client: setup.client) { events.append($0) }
        let running = Task { await uploader.run() }
        try await Task.sleep(for: .seconds(12))
        try await setup.emulator.configure(["latency_ms": 0, "error_rate": 0, "item_error_rate": 0, "drop_rate": 0, "lose_rate": 0, "rps": 0])
        #expect(try await Self.waitUntilDrained(setup.spool, timeout: 60))
        uploader.stop()
        await running.value

        let arrived = try await Self.arrived(setup.emulator)
        let expected = Set((0..<count).map { Self.location($0).time.iso8601 }).subtracting(poisoned)
        #expect(Set(arrived) == expected, "every kept position arrived, no poisoned one")
        let duplicates = arrived.count - Set(arrived).count
        let lost = try await setup.emulator.stat("lost")
        print("uploader under faults: \(arrived.count) stored for \(expected.count) positions, \(duplicates) duplicates, \(lost) lost responses, "
              + "\(try await setup.emulator.stat("throttled")) throttled, \(try await setup.emulator.stat("errors")) errors, "
              + "\(try await setup.emulator.stat("dropped")) dropped, max \(try await setup.emulator.stat("max_requests_per_second")) requests/s; \(uploader.statistics)")
        #expect(duplicates <= lost * 10, "duplicates only where a response was lost")
        #expect(Double(duplicates) <= Double(count) * 0.01 + 10 * Double(max(0, lost - count / 1000)))
        // Sent at most 9.5 a second (95 % of max-request-rate 10); counted where they arrive, in any
        // sliding second, where 50 ms of jitter on a loaded machine can put an eleventh in.
        #expect(try await setup.emulator.stat("max_requests_per_second") <= 11, "never above max-request-rate, give or take one of jitter")
        let dead = try await setup.spool.deadLetters()
        #expect(Set(dead.map(\.position.location.time.iso8601)) == Set(poisoned))
        #expect(dead.allSatisfy { $0.code == "ValidationError" })
        #expect(events.all.contains { if case .failing = $0 { true } else { false } })
        #expect(events.all.contains { if case .deadLettered = $0 { true } else { false } })
    }

    @Test func aWholeBatchValidationErrorIsBisectedToTheBadPosition() async throws {
        let setup = try await Self.setup("uploader-bisect", positions: 40)
        defer { setup.emulator.stop() }
        let badTime = Self.location(13).time
        let bad = badTime.iso8601
        try await setup.emulator.configure(["poison_requests": [badTime.wireISO8601]])
        let uploader = Uploader(configuration: Self.configuration(), spool: setup.spool, client: setup.client)
        let running = Task { await uploader.run() }
        #expect(try await Self.waitUntilDrained(setup.spool, timeout: 30))
        uploader.stop()
        await running.value
        let arrived = try await Self.arrived(setup.emulator)
        #expect(Set(arrived) == Set((0..<40).map { Self.location($0).time.iso8601 }).subtracting([bad]))
        #expect(arrived.count == 39, "no duplicates")
        #expect(try await setup.spool.deadLetters().map(\.position.location.time.iso8601) == [bad])
    }

    @Test func aRestartInTheMiddleOfADrainLosesNothing() async throws {
        let count = 300
        var setup = try await Self.setup("uploader-restart", positions: count)
        defer { setup.emulator.stop() }
        try await setup.emulator.configure(["latency_ms": 100])
        var configuration = Self.configuration()
        configuration.maxRequestRate = 5
        let first = Uploader(configuration: configuration, spool: setup.spool, client: setup.client)
        let running = Task { await first.run() }
        try await Task.sleep(for: .seconds(2))
        first.stop()
        await running.value
        let before = try await Self.arrived(setup.emulator).count
        #expect(before > 0 && before < count, "stopped mid-drain (\(before) of \(count))")
        // A new process: the spool reopened from disk.
        setup.spool = try await Spool.open(.init(directory: setup.spoolDirectory))
        #expect(try await setup.spool.statistics().queued == count - before)
        try await setup.emulator.configure(["latency_ms": 0])
        let second = Uploader(configuration: Self.configuration(), spool: setup.spool, client: setup.client)
        let again = Task { await second.run() }
        #expect(try await Self.waitUntilDrained(setup.spool, timeout: 30))
        second.stop()
        await again.value
        let arrived = try await Self.arrived(setup.emulator)
        #expect(Set(arrived) == Set((0..<count).map { Self.location($0).time.iso8601 }))
        #expect(arrived.count == count, "a graceful stop leaves no duplicates")
    }

    @Test func aConfigurationProblemIsSaidOnceAndTheQueueKept() async throws {
        let setup = try await Self.setup(
            "uploader-misconfigured", positions: 25,
            credentials: Credentials(accessKeyID: TrackerEmulator.accessKey, secretAccessKey: "wrong", source: "test"))
        defer { setup.emulator.stop() }
        let events = Events()
        let uploader = Uploader(configuration: Self.configuration(), spool: setup.spool, client: setup.client) { events.append($0) }
        let running = Task { await uploader.run() }
        try await Task.sleep(for: .milliseconds(3500))
        uploader.stop()
        await running.value
        let misconfigured = events.all.filter { if case .misconfigured = $0 { true } else { false } }
        #expect(misconfigured.count == 1, "\(events.all)")
        #expect(misconfigured.first?.description.contains("the secret access key does not belong to the access key id") == true)
        #expect(try await setup.spool.statistics().queued == 25)
        #expect(try await setup.emulator.stat("signature_failures") >= 2, "retried slowly")
        #expect(try await setup.emulator.stat("signature_failures") <= 6, "but not hammered")
    }
}

/// A backlog queued before the tracker's filtering was known: the uploader sends only what the
/// tracker will store, and starts from the last position it stored before a restart.
@Suite struct UploaderTrackerFilteringTests {
    @Test func aBacklogIsSentWithinTheTrackersRuleAndNothingSentIsIgnored() async throws {
        let setup = try await UploaderIntegrationTests.setup("withhold", positions: 300)
        defer { setup.emulator.stop() }
        try await setup.emulator.configure(["position_filtering": "TimeBased"])
        var configuration = UploaderIntegrationTests.configuration()
        configuration.trackerFiltering = .timeBased
        // The tracker already has the position of second 0 from before a restart.
        let uploader = Uploader(configuration: configuration, spool: setup.spool, client: setup.client,
                                lastStored: UploaderIntegrationTests.location(0))
        let run = Task { await uploader.run() }
        #expect(try await UploaderIntegrationTests.waitUntilDrained(setup.spool, timeout: 30))
        uploader.stop()
        await run.value
        let all = try await setup.emulator.control("/_emu/positions?all=1")["positions"] as? [[String: Any]] ?? []
        let times = all.compactMap(UploaderIntegrationTests.sampleTime)
        let statistics = uploader.statistics
        print("withheld backlog: sent \(all.count), withheld \(statistics.withheld), last stored \(statistics.lastStored?.time.iso8601 ?? "-")")
        #expect(all.allSatisfy { $0["Stored"] as? Bool == true }, "nothing sent that the tracker ignores")
        // The newest of the backlog is let through first (the live lane), then the rest, each 30 s
        // from every other and from the position stored before the restart.
        #expect(times.sorted() == (stride(from: 30, through: 240, by: 30).map { $0 } + [290]).map { UploaderIntegrationTests.location($0).time.iso8601 })
        #expect(statistics.withheld == 291)
        #expect(statistics.uploaded == 9)
        #expect(statistics.lastStored?.time == UploaderIntegrationTests.location(290).time)
    }
}

extension UploaderTrackerFilteringTests {
    @Test func aGuessedModeWithholdsNothingFromTheBacklog() async throws {
        let setup = try await UploaderIntegrationTests.setup("no-guess", positions: 60)
        defer { setup.emulator.stop() }
        var configuration = UploaderIntegrationTests.configuration()
        configuration.trackerFiltering = .timeBased
        configuration.trackerFilteringKnown = false
        let uploader = Uploader(configuration: configuration, spool: setup.spool, client: setup.client)
        let run = Task { await uploader.run() }
        #expect(try await UploaderIntegrationTests.waitUntilDrained(setup.spool, timeout: 30))
        uploader.stop()
        await run.value
        #expect(uploader.statistics.withheld == 0)
        #expect(uploader.statistics.uploaded == 60, "every queued position sent: the mode was only assumed")
    }
}
