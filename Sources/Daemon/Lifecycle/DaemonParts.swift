import AWSLocation
import Glibc
import GPSDReader
import Spool
import TrackingCore
import Uploader

/// The daemon's parts, built from the configuration: the state directory's lock, the spool, the
/// filter stage, and the services in start order (status, the tracker's filtering, the sink,
/// reload, the pipeline). `DaemonCommand.run()` runs them as a group.
struct DaemonParts {
    let lock: StateDirectoryLock
    let spool: Spool
    let stage: FilterStage
    /// Set when a kept position could not be stored (exit 74).
    let storeFailed: Flag
    let services: [any Service]

    /// Why the daemon cannot start: what to say, and the exit status.
    struct Failure: Error {
        var message: String
        var exitCode: ExitCode
    }

    static func assemble(_ command: DaemonCommand, logger: Logger, notifier: ServiceNotifier) async throws(Failure) -> DaemonParts {
        let c = command.loaded.configuration
        let lock: StateDirectoryLock
        let spool: Spool
        let repeated = RepeatedWarnings()
        do {
            lock = try StateDirectoryLock(directory: c.stateDirectory)
            spool = try await Self.openSpool(c, logger: logger, repeated: repeated)
        } catch {
            throw Failure(message: "\(error)", exitCode: (error as? StateDirectoryLock.Failure).map { $0.reason == nil ? .temporaryFailure : .cannotCreate } ?? .cannotCreate)
        }
        let storeFailed = Flag()
        let memory = c.sink == .awsLocation ? TrackerMemory.load(from: c.stateDirectory) : TrackerMemory()
        var filter = c.filter
        if c.sink == .awsLocation { filter.trackerFiltering = TrackerFilteringService.initial(configured: c.trackerFiltering, memory: memory).filtering }
        // Kept positions go from the reader's thread straight to the spool's queue.
        let stage = FilterStage(configuration: filter, tracker: c.sink == .awsLocation ? c.tracker : nil, logger: logger) { kept in
            spool.append(kept.location, kept: kept.trigger) { error in
                guard let error else { return }
                repeated.log("store", "could not store a position: \(error)", level: .error, to: logger)
                storeFailed.set()
            }
        }
        let sink: Uploader
        var tracker: TrackerSink?
        switch c.sink {
        case .awsLocation:
            do throws(OpenSSL.Unavailable) { try OpenSSL.load() } catch { throw Failure(message: "\(error)", exitCode: .unavailable) }
            do {
                let made = try TrackerSink.make(c, memory: memory, environment: command.environment, spool: spool, logger: logger,
                                                events: { Self.log($0, logger, repeated) }, filterFollows: stage.setTrackerFiltering)
                tracker = made
                sink = made.uploader
            } catch {
                throw Failure(message: "configuration error: \(error)", exitCode: .config)
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
            burstWindow: .milliseconds(Int64(c.burstWindow * 1000)), accuracySource: c.accuracySource)) { event in
            // On the reader's thread, in order: a fix lost is decided after the fixes before it
            // and before the ones after it, however busy the machine is.
            if case let .location(location) = event {
                stage.process(location)
                return false
            }
            if event.stopsTheFixes { stage.pause() }
            return true
        }
        let pipeline = PipelineService(reader: reader, stage: stage, spool: spool, live: live, logger: logger) {
            notifier.notify("READY=1\nSTATUS=waiting for gpsd")
            logger.info("gpstrackd \(Version.string) started", [
                "gpsd": c.gpsd.description, "sink": c.sink.rawValue, "device_id": c.deviceID, "state_dir": c.stateDirectory,
            ])
        }
        let delivery = SinkService(sink: sink, filtering: tracker?.filtering)
        let report = StatusReport(gpsd: c.gpsd.description, sink: c.sink, live: live, uploader: sink,
                                  filtering: tracker?.filtering, credentials: tracker?.credentials, credentialSource: tracker?.credentialSource)
        let status = StatusService(
            report: report, spool: spool, watched: [(pipeline.name, { @Sendable in pipeline.liveness }), (delivery.name, { @Sendable in delivery.liveness })],
            interval: notifier.watchdogInterval ?? .seconds(5), notify: { notifier.notify($0) },
            statusPath: DaemonStatus.path(in: c.stateDirectory), metricsPath: c.metricsFile, logger: logger, repeated: repeated)
        let (flags, environment) = (command.flags, command.environment)
        let reload = ReloadService(
            running: c, load: { try DaemonSettings.load(flags: flags, environment: environment, hostname: HistoryCommand.hostname()) },
            logger: logger, stage: stage, sink: sink, filtering: tracker?.filtering)
        // The tracker is asked before the first fix is read, as the filter starts from its mode.
        tracker?.filtering.start()
        // Listed in start order; shut down in reverse: reading stops first, status last.
        let services: [any Service] = [status] + (tracker.map { [$0.filtering] } ?? []) + [delivery, reload, pipeline]
        return DaemonParts(lock: lock, spool: spool, stage: stage, storeFailed: storeFailed, services: services)
    }

    /// Opens the spool, its events in the log (thinning, which can repeat every few positions on a
    /// full disk, at most once a minute).
    fileprivate static func openSpool(_ c: DaemonConfiguration, logger: Logger, repeated: RepeatedWarnings) async throws -> Spool {
        try await Spool.open(.init(directory: c.stateDirectory, maxRows: c.spoolMaxRows, maxBytes: c.spoolMaxBytes)) { event in
            var thinning = false
            if case .evicted = event { thinning = true }
            let level: LogLevel = event.isError ? .error : .warning
            if thinning { repeated.log("evicted", event.description, level: level, to: logger) } else { logger.log(level, event.description) }
        }
    }

    /// An uploader event's log line; withholding, which can repeat with every batch of a backlog,
    /// at most once a minute; throttling at notice (the fleet's quota, not this box, is at issue).
    fileprivate static func log(_ event: UploaderEvent, _ logger: Logger, _ repeated: RepeatedWarnings) {
        let level: LogLevel = event.isWarning ? .warning : .info
        switch event {
        case .withheld: repeated.log("withheld", event.description, level: level, to: logger)
        case .throttled: repeated.log("throttled", event.description, level: .notice, to: logger)
        default: logger.log(level, event.description)
        }
    }

}
