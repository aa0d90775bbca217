import AWSLocation
@testable import Daemon
import Foundation
import Synchronization
import Testing
import TestSupport
import TrackingCore

/// The tracker-filtering service as a service: what it applies at start, and what it remembers.
@Suite struct TrackerFilteringServiceTests {
    static func directory() -> String {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("gpstrackd-filtering-\(UUID().uuidString.prefix(8))").path
        try? FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        return path
    }

    /// A client whose endpoint answers nothing (port 9, discard): a question never returns.
    static let client = TrackerClient(
        region: "eu-west-1", endpoint: try? ServiceEndpoint("http://127.0.0.1:9"),
        credentials: StaticCredentialProvider(Credentials(accessKeyID: "A", secretAccessKey: "S", source: "test")), transport: SocketTransport())

    @Test func aConfiguredModeIsAppliedAtStartAndTheLastStoredPositionIsRememberedAtTheEnd() async throws {
        let directory = Self.directory()
        let applied = Mutex<[TrackerFiltering]>([])
        let stored = Location(time: FixTime(iso8601: "2026-12-01T08:00:30Z")!, mode: .threeD, latitude: 52.5, longitude: 13.4, horizontalAccuracy: 4)!
        let service = TrackerFilteringService(
            configured: .accuracyBased, memory: TrackerMemory(), tracker: "fleet", directory: directory,
            logger: Logger(level: .error, format: .journal), client: Self.client,
            apply: { mode in applied.withLock { $0.append(mode) } }, lastStored: { stored })
        let running = Task { await service.run() }
        try #require(await eventually { !applied.withLock { $0.isEmpty } }, "the configured mode is applied at start")
        #expect(applied.withLock { $0 } == [.accuracyBased])
        #expect(service.snapshot == .init(filtering: .accuracyBased, source: .configured))
        service.shutDownGracefully()
        await running.value
        let memory = TrackerMemory.load(from: directory)
        #expect(memory.lastStoredLocation?.time == stored.time, "remembered for the spacing after a restart")
        #expect(memory.lastStoredLocation?.horizontalAccuracy == 4)
    }

    @Test func withAutoTheRememberedModeStandsUntilTheTrackerAnswers() async throws {
        let directory = Self.directory()
        var memory = TrackerMemory()
        memory.filtering = TrackerFiltering.distanceBased.rawValue
        let service = TrackerFilteringService(configured: nil, memory: memory, tracker: "fleet", directory: directory,
                                              logger: Logger(level: .error, format: .journal), client: Self.client)
        #expect(service.snapshot == .init(filtering: .distanceBased, source: .lastKnown))
        #expect(service.isKnown, "a mode remembered is known well enough to withhold for")
        let nothing = TrackerFilteringService(configured: nil, memory: TrackerMemory(), tracker: "fleet", directory: directory,
                                              logger: Logger(level: .error, format: .journal), client: Self.client)
        #expect(nothing.snapshot == .init(filtering: .timeBased, source: .unanswered))
        #expect(!nothing.isKnown, "a guess withholds nothing already queued")
        // Shut down while the question is still out: it returns, and the question is dropped.
        let running = Task { await service.run() }
        service.shutDownGracefully()
        await running.value
    }
}
