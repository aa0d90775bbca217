import AWSLocation
import Glibc
import GPSDReader
import Spool
import Synchronization
import TrackingCore
import Uploader

/// `gpstrackd run` (the default command): the daemon as a group of services — status, the
/// tracker's filtering, the sink, reload and the pipeline (reader → filter → spool) — run together
/// and shut down in reverse order on SIGTERM (see `ServiceGroup`).
public struct DaemonCommand: Sendable {
    public var loaded: DaemonSettings.Loaded
    public var environment: [String: String]
    /// The command-line settings, read again on SIGHUP together with the file and environment.
    public var flags: [String]

    /// The whole shutdown, within systemd's `TimeoutStopSec=30s`: the uploader's in-flight
    /// requests get 10 s of it.
    static let shutdownDeadline = Duration.seconds(20)

    public init(loaded: DaemonSettings.Loaded, environment: [String: String], flags: [String] = []) {
        self.loaded = loaded
        self.environment = environment
        self.flags = flags
    }

    public func run() async -> ExitCode {
        let c = loaded.configuration
        let logger = Logger(level: c.logLevel, format: c.logFormat ?? Logger.defaultFormat(environment: environment))
        let notifier = ServiceNotifier(environment: environment)
        for warning in loaded.warnings { logger.warning(warning) }
        let lock: StateDirectoryLock
        let spool: Spool
        let repeated = RepeatedWarnings()
        do {
            lock = try StateDirectoryLock(directory: c.stateDirectory)
            spool = try await Self.openSpool(c, logger: logger, repeated: repeated)
        } catch {
            logger.error("\(error)")
            return (error as? StateDirectoryLock.Failure).map { $0.reason == nil ? .temporaryFailure : .cannotCreate } ?? .cannotCreate
        }
        let storeFailed = Flag()
        let memory = c.sink == .awsLocation ? TrackerMemory.load(from: c.stateDirectory) : TrackerMemory()
        var filter = c.filter
        if c.sink == .awsLocation { filter.trackerFiltering = TrackerFilteringService.initial(configured: c.trackerFiltering, memory: memory).filtering }
        // Kept positions go from the reader's thread straight to the spool's queue.
        let stage = FilterStage(configuration: filter, logger: logger) { kept in
            spool.append(kept.location, kept: kept.trigger) { error in
                guard let error else { return }
                repeated.log("store", "could not store a position: \(error)", level: .error, to: logger)
                storeFailed.set()
            }
        }
        let sink: any PositionSink
        var tracker: TrackerSink?
        switch c.sink {
        case .awsLocation:
            do {
                let made = try TrackerSink.make(c, memory: memory, environment: environment, spool: spool, logger: logger,
                                                events: { Self.log($0, logger, repeated) }, filterFollows: stage.setTrackerFiltering)
                tracker = made
                sink = made.uploader
            } catch {
                logger.error("configuration error: \(error)")
                return .config
            }
            // Spacing holds across a restart: from the newest position the tracker has or will have.
            for point in [memory.lastStoredLocation, try? await spool.newest()].compactMap({ $0 }) { stage.resume(after: point) }
        case .file:
            var settings = Uploader.Configuration(tracker: "", deviceID: c.deviceID)
            settings.take(c)
            sink = Uploader(configuration: settings, spool: spool, destination: FileDestination(path: c.effectiveFilePath, maxBytes: c.fileMaxBytes),
                            events: { Self.log($0, logger, repeated) })
        }
        let live = LiveState(stage: stage)
        let reader = GPSDReader(configuration: .init(
            endpoint: c.gpsd, noDataTimeout: .milliseconds(Int64(c.noDataTimeout * 1000)),
            burstWindow: .milliseconds(Int64(c.burstWindow * 1000)))) {
            stage.process($0)
            return false
        }
        let pipeline = PipelineService(reader: reader, stage: stage, spool: spool, live: live, logger: logger) {
            notifier.notify("READY=1\nSTATUS=waiting for gpsd")
            logger.info("gpstrackd \(Version.string) started", [
                "gpsd": c.gpsd.description, "sink": c.sink.rawValue, "device_id": c.deviceID, "state_dir": c.stateDirectory,
            ])
        }
        let delivery = SinkService(sink: sink, filtering: tracker?.filtering)
        let report = StatusReport(gpsd: c.gpsd.description, sink: c.sink, live: live, uploader: sink as? Uploader,
                                  filtering: tracker?.filtering, credentials: tracker?.credentials, credentialSource: tracker?.credentialSource)
        let status = StatusService(
            report: report, spool: spool, watched: [(pipeline.name, { @Sendable in pipeline.liveness }), (delivery.name, { @Sendable in delivery.liveness })],
            interval: notifier.watchdogInterval ?? .seconds(5), notify: { notifier.notify($0) },
            statusPath: c.stateDirectory + "/status.json", metricsPath: c.metricsFile, logger: logger, repeated: repeated)
        let (flags, environment) = (self.flags, self.environment)
        let reload = ReloadService(
            running: c, load: { try DaemonSettings.load(flags: flags, environment: environment, hostname: HistoryCommand.hostname()) },
            logger: logger, stage: stage, sink: sink, filtering: tracker?.filtering)
        // Listed in start order; shut down in reverse: reading stops first, status last.
        let services: [any Service] = [status] + (tracker.map { [$0.filtering] } ?? []) + [delivery, reload, pipeline]
        let group = ServiceGroup(services: services, signals: UnixSignals([SIGINT, SIGTERM]), deadline: Self.shutdownDeadline,
                                 events: { Self.log($0, logger, notifier) })
        let (ending, _) = await group.run()
        withExtendedLifetime(lock) {}
        let queued = (try? await spool.statistics().queued) ?? -1
        logger.info("gpstrackd stopped", ["filter": stage.counters.summary, "queued": String(queued)])
        if storeFailed.isSet { return .ioError }
        return ending == .cancelled ? .temporaryFailure : .success
    }

    /// Opens the spool, its events in the log (thinning, which can repeat every few positions on a
    /// full disk, at most once a minute).
    private static func openSpool(_ c: DaemonConfiguration, logger: Logger, repeated: RepeatedWarnings) async throws -> Spool {
        try await Spool.open(.init(directory: c.stateDirectory, maxRows: c.spoolMaxRows, maxBytes: c.spoolMaxBytes)) { event in
            var thinning = false
            if case .evicted = event { thinning = true }
            let level: LogLevel = event.isError ? .error : .warning
            if thinning { repeated.log("evicted", event.description, level: level, to: logger) } else { logger.log(level, event.description) }
        }
    }

    /// An uploader event's log line; withholding, which can repeat with every batch of a backlog,
    /// at most once a minute.
    private static func log(_ event: UploaderEvent, _ logger: Logger, _ repeated: RepeatedWarnings) {
        let level: LogLevel = event.isWarning ? .warning : .info
        if case .withheld = event { repeated.log("withheld", event.description, level: level, to: logger) } else { logger.log(level, event.description) }
    }

    /// The service group's events: the shutdown begun (STOPPING=1), a service that failed, and
    /// what was cancelled.
    private static func log(_ event: ServiceGroup.Event, _ logger: Logger, _ notifier: ServiceNotifier) {
        switch event {
        case let .shutdownBegan(signal, service):
            notifier.notify("STOPPING=1")
            // The last resort: a service stuck past the deadline and its cancellation (a call
            // that never returns) must not keep the process from exiting. What the spool
            // acknowledged is on disk; what was in flight is sent again at the next start.
            Task.detached {
                try? await Task.sleep(for: shutdownDeadline + .seconds(5))
                logger.error("the services did not stop within \(shutdownDeadline + .seconds(5)); exiting")
                exit(ExitCode.temporaryFailure.rawValue)
            }
            if let signal {
                logger.info("stopping on signal", ["signal": signal == SIGINT ? "SIGINT" : "SIGTERM"])
            } else {
                logger.warning("stopping: the \(service ?? "?") service ended")
            }
        case let .failed(service, error):
            logger.error("the \(service) service failed: \(error)")
        case let .cancelling(reason, running):
            logger.warning("stopping now on \(reason); cancelled: \(running.joined(separator: ", "))")
        }
    }
}

/// A flag set once, read from any thread.
final class Flag: Sendable {
    private let value = Atomic<Bool>(false)
    var isSet: Bool { value.load(ordering: .acquiring) }
    func set() { value.store(true, ordering: .releasing) }
}
