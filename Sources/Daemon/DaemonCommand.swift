import AWSLocation
import Glibc
import GPSDReader
import Spool
import Synchronization
import TrackingCore
import Uploader

/// `gpstrackd run` (the default command): reader → filter → spool → uploader (or the file sink),
/// with sd_notify, signals and a periodic summary in the log.
public struct DaemonCommand: Sendable {
    public var loaded: DaemonSettings.Loaded
    public var environment: [String: String]
    /// The command-line settings, read again on SIGHUP together with the file and environment.
    public var flags: [String]

    public init(loaded: DaemonSettings.Loaded, environment: [String: String], flags: [String] = []) {
        self.loaded = loaded
        self.environment = environment
        self.flags = flags
    }

    public func run() async -> ExitCode {
        signal(SIGPIPE, SIG_IGN)
        let c = loaded.configuration
        let logger = Logger(level: c.logLevel, format: c.logFormat ?? Logger.defaultFormat(environment: environment))
        let notifier = ServiceNotifier(environment: environment)
        for warning in loaded.warnings { logger.warning(warning) }
        let lock: StateDirectoryLock
        do {
            lock = try StateDirectoryLock(directory: c.stateDirectory)
        } catch let failure as StateDirectoryLock.Failure {
            logger.error("\(failure)")
            return failure.reason == nil ? .temporaryFailure : .cannotCreate
        } catch {
            logger.error("\(error)")
            return .cannotCreate
        }
        let repeated = RepeatedWarnings()
        /// An event's log line; one that can come every few positions (`repeating`) at most once a minute.
        let say: @Sendable (String, LogLevel, _ repeating: String?) -> Void = { text, level, key in
            if let key { repeated.log(key, text, level: level, to: logger) } else { logger.log(level, text) }
        }
        let spool: Spool
        do {
            spool = try await Spool.open(.init(directory: c.stateDirectory, maxRows: c.spoolMaxRows, maxBytes: c.spoolMaxBytes)) { event in
                // Thinning can repeat every few positions on a full disk.
                var thinning = false
                if case .evicted = event { thinning = true }
                say(event.description, event.isError ? .error : .warning, thinning ? "evicted" : nil)
            }
        } catch {
            logger.error("\(error)")
            return .cannotCreate
        }
        var uploader: Uploader?
        var fileSink: FileSink?
        var refreshing: RefreshingCredentials?
        var credentialSource: String?
        var trackerClient: TrackerClient?
        var filtering: TrackerFilteringService?
        let memory = c.sink == .awsLocation ? TrackerMemory.load(from: c.stateDirectory) : TrackerMemory()
        switch c.sink {
        case .awsLocation:
            let transport = SocketTransport()
            let resolution: CredentialChain.Resolution
            do {
                resolution = try CredentialSetup.resolve(
                    accessKeyID: c.accessKeyID, secretAccessKey: c.secretAccessKey, profile: c.profile, identityPoolID: c.identityPoolID,
                    cognitoEndpoint: c.endpoint, stateDirectory: c.stateDirectory, environment: environment, transport: transport, logger: logger)
            } catch {
                logger.error("configuration error: \(error)")
                return .config
            }
            logger.info("AWS credentials from \(resolution.source)")
            refreshing = resolution.provider as? RefreshingCredentials
            credentialSource = resolution.source
            let client = TrackerClient(region: c.region ?? "", endpoint: c.endpoint, credentials: resolution.provider, transport: transport)
            trackerClient = client
            let service = TrackerFilteringService(
                configured: c.trackerFiltering, memory: memory, tracker: c.tracker ?? "", directory: c.stateDirectory, logger: logger)
            filtering = service
            var configuration = Uploader.Configuration(tracker: c.tracker ?? "", deviceID: c.deviceID)
            configuration.trackerFiltering = service.snapshot.filtering
            configuration.trackerFilteringKnown = service.isKnown
            configuration.batchSize = c.batchSize
            configuration.uploadInterval = c.uploadInterval
            configuration.maxInFlight = c.maxInFlight
            configuration.maxRequestRate = c.maxRequestRate
            configuration.properties = c.positionProperties
            uploader = Uploader(configuration: configuration, spool: spool, client: client, events: { event in
                // Withholding can repeat with every batch of a backlog.
                var withholding = false
                if case .withheld = event { withholding = true }
                say(event.description, event.isWarning ? .warning : .info, withholding ? "withheld" : nil)
            }, lastStored: memory.lastStoredLocation)
        case .file:
            fileSink = FileSink(path: c.effectiveFilePath, maxBytes: c.fileMaxBytes, spool: spool, interval: c.uploadInterval)
        }

        // Kept positions go from the reader's thread straight to the spool's queue; the uploader
        // hears of each once it is committed.
        let storeFailed = Flag()
        // The filter keeps nothing the tracker would not store (see TrackerSpacing).
        let filterWithTracker: @Sendable (FilterConfiguration) -> FilterConfiguration = { [filtering] base in
            var configuration = base
            configuration.trackerFiltering = filtering?.snapshot.filtering ?? .none
            return configuration
        }
        let stage = FilterStage(configuration: filterWithTracker(c.filter), logger: logger) { [uploader] kept in
            spool.append(kept.location, kept: kept.trigger) { error in
                if let error {
                    repeated.log("store", "could not store a position: \(error)", level: .error, to: logger)
                    storeFailed.set()
                }
                uploader?.notifyAppended()
            }
        }
        if filtering != nil {
            // Spacing holds across a restart: from the newest position the tracker has or will have.
            for point in [memory.lastStoredLocation, try? await spool.newest()].compactMap({ $0 }) { stage.resume(after: point) }
        }
        let applyFiltering: @Sendable (TrackerFiltering) -> Void = { [uploader, filtering] mode in
            stage.setTrackerFiltering(mode)
            if let uploader {
                var settings = uploader.configuration
                settings.trackerFiltering = mode
                settings.trackerFilteringKnown = filtering?.isKnown ?? true
                uploader.update(settings)
            }
        }
        let live = LiveState(stage: stage)
        let reader = GPSDReader(configuration: .init(
            endpoint: c.gpsd, noDataTimeout: .milliseconds(Int64(c.noDataTimeout * 1000)),
            burstWindow: .milliseconds(Int64(c.burstWindow * 1000)))) {
            stage.process($0)
            return false
        }
        let signals = SignalSource([SIGINT, SIGTERM]) { number in
            logger.info("stopping on signal", ["signal": number == SIGINT ? "SIGINT" : "SIGTERM"])
            reader.stop()
        }
        let stopping = Flag()
        let uploadTask = Task { [uploader, fileSink, filtering] in
            // The first batch waits a moment for the tracker's mode (never more than 3 s): what is
            // sent then already obeys it. Reading gpsd and READY=1 do not wait.
            await filtering?.waitForAnswer(upTo: .seconds(3))
            if let uploader { await uploader.run() }
            await fileSink?.run { problem in repeated.log("file-sink", problem, level: .error, to: logger) }
        }
        // The spool's statistics come from the caller, which often has them already.
        let publish: @Sendable (SpoolStatistics?) async -> DaemonStatus = { [uploader, fileSink, refreshing, credentialSource, filtering] stats in
            let written = fileSink?.statistics
            let expires = await refreshing?.expiration
            let upload = uploader?.statistics
            let snapshot = live.snapshot
            return DaemonStatus(
                pid: getpid(), updated: SystemClock.now().iso8601,
                gpsd: .init(connected: snapshot.connected, endpoint: c.gpsd.description),
                lastFix: snapshot.lastFix.map { .init(time: $0.time.iso8601, mode: $0.mode.description, latitude: $0.latitude, longitude: $0.longitude) },
                filter: .init(in: snapshot.filter.fixesIn, kept: snapshot.filter.keptTotal,
                              rejected: Dictionary(uniqueKeysWithValues: snapshot.filter.rejected.map { ($0.key.rawValue, $0.value) })),
                spool: .init(queued: stats?.queued ?? 0, oldest: stats?.oldest?.iso8601, deadLetters: stats?.deadLetters ?? 0,
                             evictions: stats?.evictions ?? 0, heldInMemory: stats?.heldInMemory ?? 0, storeFailures: stats?.storeFailures ?? 0),
                upload: .init(sink: c.sink.rawValue, uploaded: upload?.uploaded ?? written?.written ?? 0,
                              lastSuccess: (upload?.lastSuccess ?? written?.lastSuccess)?.iso8601, lastError: upload?.lastError ?? written?.lastError),
                tracker: .init(filtering: filtering?.snapshot.filtering.rawValue, source: filtering?.snapshot.source.rawValue,
                               withheld: snapshot.filter.withheld + (upload?.withheld ?? 0)),
                credentials: .init(source: credentialSource, expires: expires?.iso8601))
        }
        let statusPath = c.stateDirectory + "/status.json"
        let writeStatus: @Sendable (SpoolStatistics?) async -> Void = { stats in
            let status = await publish(stats)
            if let problem = AtomicFile.write(status.json() + "\n", to: statusPath) {
                repeated.log("status-file", "cannot write \(statusPath): \(problem); gpstrackd status shows old figures until it can", to: logger)
            }
            if let metrics = c.metricsFile, let problem = AtomicFile.write(status.metrics, to: metrics) {
                repeated.log("metrics-file", "cannot write the metrics file \(metrics): \(problem)", to: logger)
            }
        }
        let reloadFlags = flags
        let reloadEnvironment = environment
        let hup = SignalSource([SIGHUP]) { [uploader, fileSink, filtering, trackerClient] _ in
            do {
                let next = try DaemonSettings.load(flags: reloadFlags, environment: reloadEnvironment, hostname: HistoryCommand.hostname())
                let n = next.configuration
                for warning in next.warnings { logger.warning(warning) }
                var fixed: [String] = []
                if n.gpsd != c.gpsd { fixed.append("gpsd") }
                if n.noDataTimeout != c.noDataTimeout { fixed.append("no-data-timeout") }
                if n.burstWindow != c.burstWindow { fixed.append("burst-window") }
                if n.stateDirectory != c.stateDirectory { fixed.append("state-dir") }
                if n.sink != c.sink || n.tracker != c.tracker || n.region != c.region || n.endpoint != c.endpoint { fixed.append("sink/tracker/region/endpoint") }
                if n.deviceID != c.deviceID { fixed.append("device-id") }
                if n.accessKeyID != c.accessKeyID || n.secretAccessKey != c.secretAccessKey || n.profile != c.profile
                    || n.identityPoolID != c.identityPoolID { fixed.append("credentials") }
                if n.filePath != c.filePath { fixed.append("file-path") }
                if n.fileMaxBytes != c.fileMaxBytes { fixed.append("file-max-bytes") }
                if n.spoolMaxRows != c.spoolMaxRows || n.spoolMaxBytes != c.spoolMaxBytes { fixed.append("spool-max-rows/spool-max-bytes") }
                if n.logFormat != c.logFormat { fixed.append("log-format") }
                if n.metricsFile != c.metricsFile { fixed.append("metrics-file") }
                logger.level = n.logLevel
                stage.reconfigure(filterWithTracker(n.filter))
                if let filtering, let trackerClient {
                    filtering.start(configured: n.trackerFiltering, client: trackerClient, apply: applyFiltering)
                }
                fileSink?.update(interval: n.uploadInterval)
                if let uploader {
                    var settings = uploader.configuration
                    settings.batchSize = n.batchSize
                    settings.uploadInterval = n.uploadInterval
                    settings.maxInFlight = n.maxInFlight
                    settings.maxRequestRate = n.maxRequestRate
                    settings.properties = n.positionProperties
                    uploader.update(settings)
                }
                logger.info("configuration reloaded (filters, log level, upload settings)")
                if !fixed.isEmpty {
                    logger.warning("changed settings that need a restart were not applied: \(fixed.joined(separator: ", ")); restart gpstrackd for them")
                }
            } catch {
                logger.error("configuration reload rejected: \(error); keeping the running configuration")
            }
        }
        let usr1 = SignalSource([SIGUSR1]) { _ in
            Task {
                let status = await publish(try? await spool.statistics())
                logger.notice("status: " + status.summary.split(separator: "\n").joined(separator: "; "))
            }
        }
        // What the tracker stored last, kept in the state directory for the spacing after a restart.
        let rememberStored: @Sendable (Uploader.Statistics?) -> Void = { [filtering] upload in
            guard let stored = upload?.lastStored, let problem = filtering?.remember(stored: stored) else { return }
            repeated.log("tracker-memory", "cannot remember the tracker's last stored position: \(problem)", to: logger)
        }
        let housekeeping = Task { [uploader, fileSink, filtering] in
            var lastSummary = ContinuousClock.now
            while !stopping.isSet {
                try? await Task.sleep(for: notifier.watchdogInterval ?? .seconds(5))
                if stopping.isSet { break }
                let stats = try? await spool.statistics()
                let upload = uploader?.statistics
                rememberStored(upload)
                let snapshot = live.snapshot
                let now = SystemClock.now()
                let fix = snapshot.connected ? (snapshot.lastFix.map { "\($0.mode.description.uppercased()) fix" } ?? "no fix") : "gpsd not connected"
                var status = "\(fix), \(stats?.queued ?? 0) queued"
                if uploader != nil || fileSink != nil {
                    let last = upload?.lastSuccess ?? fileSink?.statistics.lastSuccess
                    status += (uploader != nil ? ", last upload " : ", last written ") + (last.map { "\(Int(max(0, $0.seconds(to: now)))) s ago" } ?? "never")
                }
                if let mode = filtering?.snapshot.filtering {
                    status += ", tracker \(mode), \(snapshot.filter.withheld + (upload?.withheld ?? 0)) withheld"
                }
                // WATCHDOG=1 only while the reader and upload loops are alive.
                let readerAlive = reader.sinceLastLoop < .seconds(15)
                // Each loop by its own promise: the uploader may wait a whole upload-interval.
                let uploaderAlive = uploader.map { $0.sinceLastLoop < $0.longestWait + .seconds(50) }
                    ?? fileSink.map { $0.sinceLastLoop < $0.longestWait + .seconds(50) } ?? true
                notifier.notify((readerAlive && uploaderAlive ? "WATCHDOG=1\n" : "") + "STATUS=\(status)")
                if !readerAlive || !uploaderAlive {
                    repeated.log("watchdog", "a loop stopped going round (reader \(readerAlive ? "alive" : "stuck"), uploader \(uploaderAlive ? "alive" : "stuck")); withholding the watchdog ping", level: .error, to: logger)
                }
                await writeStatus(stats)
                if ContinuousClock.now - lastSummary >= .seconds(300) {
                    logger.info("summary: \(snapshot.filter.fixesIn) fixes in, \(snapshot.filter.keptTotal) kept, \(upload?.uploaded ?? 0) uploaded, \(stats?.queued ?? 0) queued")
                    lastSummary = .now
                }
            }
        }
        if let filtering, let trackerClient {
            filtering.start(configured: c.trackerFiltering, client: trackerClient, apply: applyFiltering)
        }
        reader.start()
        notifier.notify("READY=1\nSTATUS=waiting for gpsd")
        logger.info("gpstrackd \(Version.string) started", [
            "gpsd": c.gpsd.description, "sink": c.sink.rawValue, "device_id": c.deviceID, "state_dir": c.stateDirectory,
        ])

        await writeStatus(try? await spool.statistics())
        // Locations are filtered on the reader's thread (`stage`); the other events come here.
        for await event in reader.events {
            live.record(event)
            ReaderEventLog.log(event, to: logger)
            switch event {
            case .deviceDeactivated, .noData, .disconnected, .fixLost: stage.pause()
            default: break
            }
        }
        notifier.notify("STOPPING=1")
        stage.finish()
        await spool.flush()
        let failed = storeFailed.isSet
        stopping.set()
        fileSink?.stop()
        uploader?.stop()
        await uploadTask.value
        housekeeping.cancel()
        filtering?.stop()
        rememberStored(uploader?.statistics)
        live.record(.disconnected(.connectionLost(endpoint: c.gpsd, reason: "stopped")))
        await writeStatus(try? await spool.statistics())
        withExtendedLifetime(signals) {}
        withExtendedLifetime(usr1) {}
        withExtendedLifetime(hup) {}
        withExtendedLifetime(lock) {}
        let queued = (try? await spool.statistics().queued) ?? -1
        logger.info("gpstrackd stopped", ["filter": stage.counters.summary, "queued": String(queued)])
        return failed ? .ioError : .success
    }
}

/// A stop flag shared with the daemon's tasks.
final class Flag: Sendable {
    private let value = Atomic<Bool>(false)
    var isSet: Bool { value.load(ordering: .acquiring) }
    func set() { value.store(true, ordering: .releasing) }
}
