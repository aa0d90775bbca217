@testable import Daemon
import Foundation
import Glibc
import GPSDReader
import Spool
import Synchronization
import Testing
import TestSupport
import TrackingCore
import Uploader

/// The pipeline and sink services alone, and the signal sequence they are stopped by.
@Suite struct LifecycleServicesTests {
    static func spool(_ name: String) async throws -> (Spool, String) {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("gpstrackd-\(name)-\(UUID().uuidString.prefix(8))").path
        return (try await Spool.open(.init(directory: directory)), directory)
    }

    @Test func aCaughtSignalArrivesInTheSequenceAndCancellingRestoresTheOldAction() async throws {
        let signals = UnixSignals([SIGUSR2])
        // Dispatch arms its source a moment after creation (until then the signal is ignored,
        // never fatal): raised until it has been caught, before anyone iterates.
        let caught = Task { () -> Int32? in
            for await number in signals { return number }
            return nil
        }
        let raising = Task {
            while !Task.isCancelled {
                kill(getpid(), SIGUSR2)  // to the process, as systemd sends it (raise() is for this thread only)
                try? await Task.sleep(for: .milliseconds(20))
            }
        }
        #expect(await caught.value == SIGUSR2)
        raising.cancel()
        await raising.value
        let waiting = Task { for await _ in signals {} }
        waiting.cancel()
        await waiting.value
        var now = sigaction()
        sigaction(SIGUSR2, nil, &now)
        #expect(unsafeBitCast(now.__sigaction_handler.sa_handler, to: Int.self) == unsafeBitCast(SIG_DFL, to: Int.self),
                "the default action is back")
    }

    @Test func theSinkServiceDrainsUntilShutDownThenOnceMore() async throws {
        let (spool, directory) = try await Self.spool("sink-service")
        var settings = Uploader.Configuration(tracker: "", deviceID: "van")
        settings.uploadInterval = 3600
        let sink = Uploader(configuration: settings, spool: spool, destination: FileDestination(path: directory + "/positions.jsonl", maxBytes: 1 << 20))
        let service = SinkService(sink: sink)
        #expect(service.liveness?.promise == sink.longestWait + Liveness.slack)
        let running = Task { await service.run() }
        let start = FixTime(iso8601: "2026-12-01T08:00:00Z")!
        for n in 0..<3 { try await spool.append(Location(time: start.adding(seconds: Double(n)), mode: .twoD, latitude: 52.5, longitude: 13.4)!) }
        service.shutDownGracefully()
        await running.value
        #expect(sink.statistics.uploaded == 3, "what was queued when it stopped is in the file")
    }

    @Test func thePipelineStartsReadingAndOnShutdownFinishesTheFilterAndFlushesTheSpool() async throws {
        let (spool, _) = try await Self.spool("pipeline")
        let logger = Logger(level: .error, format: .journal)
        let kept = Mutex<[KeptLocation]>([])
        let stage = FilterStage(configuration: FilterConfiguration(), logger: logger) { position in kept.withLock { $0.append(position) } }
        // Nothing listens on port 1: the reader retries with backoff until stopped.
        let reader = GPSDReader(configuration: .init(endpoint: GPSDEndpoint("127.0.0.1:1")!, noDataTimeout: .seconds(10)))
        let reading = Mutex(false)
        let live = LiveState(stage: stage)
        let pipeline = PipelineService(reader: reader, stage: stage, spool: spool, live: live, logger: logger) { reading.withLock { $0 = true } }
        let running = Task { await pipeline.run() }
        try #require(await eventually { reading.withLock { $0 } }, "the pipeline starts reading")
        let start = FixTime(iso8601: "2026-12-01T08:00:00Z")!
        stage.process(Location(time: start, mode: .threeD, latitude: 52.5, longitude: 13.4, speed: 10)!)
        #expect(pipeline.liveness.map { $0.isKept(at: .now) } == true)
        pipeline.shutDownGracefully()
        await running.value
        #expect(!live.snapshot.connected)
        let count = kept.withLock { $0.count }
        stage.process(Location(time: start.adding(seconds: 60), mode: .threeD, latitude: 52.6, longitude: 13.4, speed: 10)!)
        #expect(kept.withLock { $0.count } == count, "nothing is kept after the pipeline finished the filter")
    }
}
