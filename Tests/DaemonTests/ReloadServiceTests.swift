import AWSLocation
@testable import Daemon
import Foundation
import Spool
import Testing
import TrackingCore
import Uploader

/// SIGHUP's reload, without the binary: every key changed once is either in force afterwards or
/// named as needing a restart, as the key table says.
@Suite struct ReloadServiceTests {
    /// A valid new value for every key (the test fails for a key added without one).
    static let changed: [String: String] = [
        "gpsd": "127.0.0.1:2948", "no-data-timeout": "20", "burst-window": "0.2", "accuracy-source": "gpsd", "device-id": "van-9",
        "state-dir": "/tmp/gpstrackd-reload-other", "sink": "file", "region": "eu-central-1", "tracker": "other",
        "endpoint": "http://127.0.0.1:4567", "identity-pool-id": "eu-west-1:00000000-0000-0000-0000-000000000000",
        "profile": "other", "access-key-id": "AKIDOTHER", "secret-access-key": "other-secret", "file-path": "/tmp/gpstrackd-reload.jsonl",
        "file-max-bytes": "8192", "batch-size": "5", "upload-interval": "30", "max-in-flight": "2", "max-request-rate": "5", "quota-share": "0.25", "data-budget": "5000000", "connection-keepalive": "25",
        "position-properties": "speed", "spool-max-rows": "5000", "spool-max-bytes": "2000000", "log-level": "debug",
        "log-format": "json", "metrics-file": "/tmp/gpstrackd-reload.prom", "tracker-filtering": "DistanceBased",
        "min-mode": "3d", "max-accuracy": "30", "max-speed": "50", "outlier-confirmations": "5", "max-future": "600",
        "earliest-time": "2021-01-01T00:00:00Z", "max-interval": "120", "stationary-interval": "600", "max-deviation": "15",
        "min-interval": "2", "min-distance": "100", "min-angle": "30", "moving-speed": "3", "stopped-speed": "0.5",
        "stop-delay": "10", "departure-distance": "80",
    ]

    static let base = ["--state-dir", "/tmp/gpstrackd-reload", "--sink", "aws-location", "--tracker", "t", "--region", "eu-west-1",
                       "--access-key-id", "AKIDEXAMPLE", "--secret-access-key", "secret", "--tracker-filtering", "none"]

    static func spool() async throws -> Spool {
        try await Spool.open(.init(directory: FileManager.default.temporaryDirectory.appendingPathComponent("gpstrackd-reload-\(UUID().uuidString.prefix(8))").path))
    }

    static func load(_ flags: [String]) throws -> DaemonSettings.Loaded {
        try DaemonSettings.load(flags: flags, environment: [:], hostname: "van-3")
    }

    @Test func everyKeyChangedOnceIsAppliedOrNamedForARestart() async throws {
        #expect(Set(Self.changed.keys) == Set(DaemonSettings.keys.map(\.name)), "a sample value for every key")
        let started = try Self.load(Self.base).configuration
        for key in DaemonSettings.keys {
            let logger = Logger(level: .info, format: .journal)
            let stage = FilterStage(configuration: started.filter, logger: logger) { _ in }
            var settings = Uploader.Configuration(tracker: "t", deviceID: started.deviceID)
            settings.take(started)
            let client = TrackerClient(region: "eu-west-1", endpoint: try ServiceEndpoint("http://127.0.0.1:9"),
                                       credentials: StaticCredentialProvider(Credentials(accessKeyID: "A", secretAccessKey: "S", source: "test")),
                                       transport: SocketTransport())
            let spool = try await Self.spool()
            let uploader = Uploader(configuration: settings, spool: spool, client: client)
            let filtering = TrackerFilteringService(configured: TrackerFiltering.none, memory: TrackerMemory(), tracker: "t", directory: "/nonexistent",
                                                    logger: logger, client: client)
            let next = Self.base + ["--\(key.name)", Self.changed[key.name]!]
            let reload = ReloadService(running: started, load: { try Self.load(next) }, logger: logger, stage: stage, sink: uploader, filtering: filtering)
            let outcome = try #require(reload.reload(), "\(key.name) \(Self.changed[key.name]!) loads")
            let n = try Self.load(next).configuration
            #expect(key.show(n) != key.show(started), "\(key.name): the sample changes it")
            if key.live {
                #expect(outcome == .init(applied: [key.name], needRestart: []), "\(key.name)")
                // In force where it acts.
                var filter = stage.configuration
                filter.trackerFiltering = n.filter.trackerFiltering
                #expect(filter == n.filter, "\(key.name): the filter follows")
                #expect(logger.level == n.logLevel)
                var expected = settings
                expected.take(n)
                expected.trackerFiltering = uploader.configuration.trackerFiltering
                expected.trackerFilteringKnown = uploader.configuration.trackerFilteringKnown
                #expect(uploader.configuration == expected, "\(key.name): the uploader follows")
                #expect(filtering.snapshot.filtering == n.trackerFiltering, "\(key.name): the tracker's filtering follows")
            } else {
                #expect(outcome == .init(applied: [], needRestart: [key.name]), "\(key.name)")
            }
        }
    }

    @Test func aLiveChangeIsReportedOnceAndARestartChangeUntilTheRestart() throws {
        let started = try Self.load(Self.base).configuration
        let first = try Self.load(Self.base + ["--max-deviation", "15", "--log-format", "json"]).configuration
        #expect(ReloadService.outcome(started: started, previous: started, next: first) == .init(applied: ["max-deviation"], needRestart: ["log-format"]))
        #expect(ReloadService.outcome(started: started, previous: first, next: first) == .init(applied: [], needRestart: ["log-format"]))
    }

    @Test func aConfigurationThatDoesNotLoadChangesNothing() async throws {
        let started = try Self.load(Self.base).configuration
        let logger = Logger(level: .info, format: .journal)
        let stage = FilterStage(configuration: started.filter, logger: logger) { _ in }
        var settings = Uploader.Configuration(tracker: "", deviceID: "van-3")
        settings.uploadInterval = 5
        let sink = Uploader(configuration: settings, spool: try await Self.spool(),
                            destination: FileDestination(path: "/tmp/gpstrackd-reload-none.jsonl", maxBytes: 1 << 20))
        let reload = ReloadService(running: started, load: { try Self.load(Self.base + ["--max-deviation", "-1", "--upload-interval", "9"]) },
                                   logger: logger, stage: stage, sink: sink, filtering: nil)
        #expect(reload.reload() == nil)
        #expect(stage.configuration == started.filter && sink.configuration.uploadInterval == 5)
    }
}
