import AWSLocation
@testable import Daemon
import Foundation
import Glibc
import Spool
import Synchronization
import Testing
import TestSupport
import TrackingCore
import Uploader

/// The status service's rounds with the time passed in: what it tells systemd, and when the
/// watchdog ping stops.
@Suite struct StatusServiceTests {
    final class Messages: Sendable {
        private let sent = Mutex<[String]>([])
        func add(_ message: String) { sent.withLock { $0.append(message) } }
        var all: [String] { sent.withLock { $0 } }
    }

    /// A manual clock: the instant the service reads.
    final class ManualClock: Sendable {
        let start = ContinuousClock.now
        private let offset = Mutex(Duration.zero)
        var now: ContinuousClock.Instant { start + offset.withLock { $0 } }
        func advance(_ by: Duration) { offset.withLock { $0 += by } }
    }

    struct Scene {
        var spool: Spool
        var stage: FilterStage
        var directory: String
        var logger: Logger
    }

    static func scene() async throws -> Scene {
        // On tmpfs when there is one: the hour's 720 rounds each replace status.json durably, and
        // 720 fsyncs on a busy disk would hold a thread the suite's timing tests share.
        let base = FileManager.default.fileExists(atPath: "/dev/shm") ? "/dev/shm" : FileManager.default.temporaryDirectory.path
        let directory = base + "/gpstrackd-status-\(UUID().uuidString.prefix(8))"
        let spool = try await Spool.open(.init(directory: directory))
        let logger = Logger(level: .error, format: .journal)
        return Scene(spool: spool, stage: FilterStage(configuration: FilterConfiguration(), logger: logger) { _ in }, directory: directory, logger: logger)
    }

    static func uploader(_ spool: Spool, interval: Double) -> Uploader {
        var configuration = Uploader.Configuration(tracker: "t", deviceID: "d")
        configuration.uploadInterval = interval
        let client = TrackerClient(
            region: "eu-central-1", endpoint: try? ServiceEndpoint("http://127.0.0.1:9"),
            credentials: StaticCredentialProvider(Credentials(accessKeyID: "AKIDEXAMPLE", secretAccessKey: "secret", source: "test")),
            transport: SocketTransport())
        return Uploader(configuration: configuration, spool: spool, client: client)
    }

    static func service(_ scene: Scene, watched: [StatusService.Watched], clock: ManualClock, messages: Messages, interval: Duration = .seconds(5)) -> StatusService {
        let report = StatusReport(gpsd: "127.0.0.1:2947", sink: .awsLocation, live: LiveState(stage: scene.stage),
                                  uploader: Self.uploader(scene.spool, interval: 5))
        return StatusService(report: report, spool: scene.spool, watched: watched, interval: interval, notify: messages.add,
                             statusPath: scene.directory + "/status.json", metricsPath: scene.directory + "/metrics.prom",
                             logger: scene.logger, repeated: RepeatedWarnings(), now: { clock.now })
    }

    @Test func anIdleUploaderWithAnHourlyIntervalKeepsTheTenSecondWatchdogPinging() async throws {
        let scene = try await Self.scene()
        let sink = SinkService(sink: Self.uploader(scene.spool, interval: 3600))
        let clock = ManualClock()
        let messages = Messages()
        let status = Self.service(scene, watched: [("sink", { sink.liveness })], clock: clock, messages: messages)
        // WatchdogSec=10s: a round every 5 s, for the whole hour the uploader may wait.
        for _ in 0..<(3600 / 5) {
            clock.advance(.seconds(5))
            #expect(await status.tick().isEmpty)
        }
        #expect(messages.all.count == 720)
        #expect(messages.all.allSatisfy { $0.hasPrefix("WATCHDOG=1\nSTATUS=") })
        // Still not gone round well past its promise: stuck, and the ping stops.
        clock.advance(.seconds(120))
        #expect(await status.tick() == ["sink"])
        #expect(messages.all.last?.hasPrefix("STATUS=") == true)
    }

    @Test func aStuckReaderStopsThePingsWithinItsPromise() async throws {
        let scene = try await Self.scene()
        let clock = ManualClock()
        let messages = Messages()
        let lastRound = clock.now
        let status = Self.service(scene, watched: [
            ("pipeline", { Liveness(lastSign: lastRound, promise: PipelineService.promise) }),
            ("sink", { Liveness(lastSign: clock.now, longestWait: .seconds(5)) }),
        ], clock: clock, messages: messages)
        clock.advance(.seconds(10))
        #expect(await status.tick().isEmpty)
        clock.advance(.seconds(10))
        #expect(await status.tick() == ["pipeline"], "20 s without a round breaks the reader's 15 s promise")
        #expect(messages.all.map { $0.hasPrefix("WATCHDOG=1") } == [true, false])
    }

    @Test func eachRoundWritesTheStatusFileTheMetricsAndTheServiceStatusLine() async throws {
        let scene = try await Self.scene()
        try await scene.spool.append(Location(time: FixTime(iso8601: "2026-12-01T08:00:00Z")!, mode: .threeD, latitude: 52.5, longitude: 13.4)!)
        let clock = ManualClock()
        let messages = Messages()
        let status = Self.service(scene, watched: [], clock: clock, messages: messages)
        await status.tick()
        let written = try String(contentsOfFile: scene.directory + "/status.json", encoding: .utf8)
        #expect(DaemonStatus.decode(written)?.spool.queued == 1)
        #expect(try String(contentsOfFile: scene.directory + "/metrics.prom", encoding: .utf8).contains("gpstrackd_spool_queued 1.0"))
        #expect(messages.all == ["WATCHDOG=1\nSTATUS=gpsd not connected, 1 queued, last upload never"])
    }

    @Test func runPublishesAtStartAndOnceMoreAfterItIsAskedToStop() async throws {
        let scene = try await Self.scene()
        let messages = Messages()
        let status = Self.service(scene, watched: [], clock: ManualClock(), messages: messages, interval: .seconds(3600))
        let running = Task { await status.run() }
        try #require(await eventually { FileManager.default.fileExists(atPath: scene.directory + "/status.json") }, "the status file is written at start")
        try FileManager.default.removeItem(atPath: scene.directory + "/status.json")
        status.shutDownGracefully()
        await running.value
        #expect(FileManager.default.fileExists(atPath: scene.directory + "/status.json"), "the last figures, as the daemon stopped")
        #expect(messages.all.isEmpty, "no round in between")
    }
}
