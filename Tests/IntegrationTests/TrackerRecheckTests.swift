import AWSLocation
@testable import Daemon
import Foundation
import Synchronization
import Testing
import TestSupport
import TrackingCore
import Uploader

/// With `tracker-filtering auto` the tracker is asked again while the daemon runs (against the
/// project's emulator, every 0.2 s here instead of the hour, and after a failure within 0.1 s
/// doubling instead of 30 s): an operator who changes the tracker's mode has it followed without
/// reaching the box.
@Suite struct TrackerRecheckTests {
    @Test func aModeChangedOnTheTrackerIsFollowedAndSaidOnce() async throws {
        let directory = TestPaths.temporaryDirectory("recheck")
        let emulator = try await TrackerEmulator.start(directory: directory)
        defer { emulator.stop() }
        try await emulator.configure(["position_filtering": "TimeBased"])
        let lines = Mutex<[String]>([])
        let applied = Mutex<[TrackerFiltering]>([])
        let client = TrackerClient(region: "eu-west-1", endpoint: emulator.endpoint,
                                   credentials: StaticCredentialProvider(emulator.staticCredentials), transport: SocketTransport())
        let service = TrackerFilteringService(
            configured: nil, memory: TrackerMemory(), tracker: "fleet", directory: directory.path,
            logger: Logger(level: .info, format: .text, sink: { line in lines.withLock { $0.append(line) } }), client: client,
            apply: { mode in applied.withLock { $0.append(mode) } }, recheck: .milliseconds(200), retry: RetryPolicy(base: 0.1, cap: 0.4))
        let running = Task { await service.run() }
        defer { service.shutDownGracefully() }
        func said(_ text: String) -> Int { lines.withLock { $0.filter { $0.contains(text) }.count } }

        try #require(await eventually { applied.withLock { $0 } == [.timeBased] }, "the first answer is applied")
        #expect(said("tracker 'fleet' filters positions: TimeBased") == 1)
        let firstAnswer = try #require(service.lastAsked.answered, "when the tracker answered, for status")
        #expect(service.lastAsked.failure == nil)
        #expect(said("--position-filtering AccuracyBased (gpstrackd asks the tracker again within the hour, or at once on SIGHUP)") == 1,
                "the TimeBased warning, once, saying when the change is followed")

        // The same answer again: nothing applied, nothing said.
        let asked = try await emulator.stat("describes")
        try #require(await eventually { try await emulator.stat("describes") >= asked + 3 }, "asked again")
        #expect(applied.withLock { $0 } == [.timeBased])
        #expect(said("filters positions") == 1)

        // The operator follows the warning's command: the new mode is applied, said once, remembered.
        try await emulator.configure(["position_filtering": "AccuracyBased"])
        try #require(await eventually { applied.withLock { $0 } == [.timeBased, .accuracyBased] }, "\(lines.withLock { $0 })")
        #expect(service.snapshot == .init(filtering: .accuracyBased, source: .describeTracker))
        #expect(said("tracker 'fleet' now filters positions: AccuracyBased (was TimeBased)") == 1)
        #expect(await eventually { TrackerMemory.load(from: directory.path).knownFiltering == .accuracyBased }, "remembered for the next start")

        // The service fails for a while: the mode stands, the failure is said once, the question
        // is asked again until it is answered, and the same answer then is not news.
        let failing = try await emulator.stat("describes")
        try await emulator.configure(["describe_failing": true])
        try #require(await eventually { try await emulator.stat("describes") >= failing + 4 })
        #expect(service.snapshot == .init(filtering: .accuracyBased, source: .describeTracker))
        #expect(said("cannot ask tracker 'fleet' for its PositionFiltering") == 1, "\(lines.withLock { $0 })")
        #expect(said("keeping AccuracyBased (DescribeTracker) and asking again later") == 1)
        #expect(service.lastAsked.failure?.contains("HTTP 503") == true, "status says why: \(service.lastAsked)")
        let lastAnswer = try #require(service.lastAsked.answered)
        #expect(lastAnswer > firstAnswer, "the answers while it answered count")
        try await emulator.configure(["describe_failing": false])
        let answering = try await emulator.stat("describes")
        try #require(await eventually { try await emulator.stat("describes") >= answering + 2 })
        #expect(applied.withLock { $0 } == [.timeBased, .accuracyBased])
        #expect(said("filters positions") == 2, "the first answer and the change, nothing since: \(lines.withLock { $0 })")
        #expect(service.lastAsked.failure == nil && (service.lastAsked.answered ?? lastAnswer) > lastAnswer, "\(service.lastAsked)")

        // A denial later (the role changed): the mode the tracker told stands, said once.
        let before = try await emulator.stat("describes")
        try await emulator.configure(["describe_denied": true])
        try #require(await eventually { try await emulator.stat("describes") >= before + 3 })
        #expect(service.snapshot == .init(filtering: .accuracyBased, source: .describeTracker))
        #expect(applied.withLock { $0 } == [.timeBased, .accuracyBased])
        #expect(said("access denied") == 1)
        #expect(service.lastAsked.failure?.contains("the IAM policy must allow geo:DescribeTracker") == true, "\(service.lastAsked)")
        #expect(said("now filters positions") == 1)

        service.shutDownGracefully()
        await running.value
    }
}
