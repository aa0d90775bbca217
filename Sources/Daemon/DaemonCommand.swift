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

    public init(loaded: DaemonSettings.Loaded, environment: [String: String]) {
        self.loaded = loaded
        self.environment = environment
    }

    public func run() async -> ExitCode {
        signal(SIGPIPE, SIG_IGN)
        let c = loaded.configuration
        let logger = Logger(level: c.logLevel, format: c.logFormat ?? Logger.defaultFormat(environment: environment))
        let notifier = ServiceNotifier(environment: environment)
        let spool: Spool
        do {
            spool = try await Spool.open(.init(directory: c.stateDirectory, maxRows: c.spoolMaxRows, maxBytes: c.spoolMaxBytes)) { event in
                if event.isError { logger.error(event.description) } else { logger.warning(event.description) }
            }
        } catch {
            logger.error("\(error)")
            return .cannotCreate
        }
        var uploader: Uploader?
        var fileSink: FileSink?
        switch c.sink {
        case .awsLocation:
            let transport = CurlTransport()
            var chain = CredentialChain.Configuration(environment: environment)
            chain.accessKeyID = c.accessKeyID
            chain.secretAccessKey = c.secretAccessKey
            chain.profile = c.profile
            chain.identityPoolID = c.identityPoolID
            chain.cognitoEndpoint = c.endpoint
            chain.stateDirectory = c.stateDirectory
            let resolution: CredentialChain.Resolution
            do {
                resolution = try CredentialChain.resolve(chain, transport: transport)
            } catch {
                logger.error("configuration error: \(error)")
                return .config
            }
            for warning in resolution.warnings { logger.warning(warning) }
            logger.info("AWS credentials from \(resolution.source)")
            let client = TrackerClient(region: c.region ?? "", endpoint: c.endpoint, credentials: resolution.provider, transport: transport)
            var configuration = Uploader.Configuration(tracker: c.tracker ?? "", deviceID: c.deviceID)
            configuration.batchSize = c.batchSize
            configuration.uploadInterval = c.uploadInterval
            configuration.maxInFlight = c.maxInFlight
            configuration.maxRequestRate = c.maxRequestRate
            configuration.properties = c.positionProperties
            uploader = Uploader(configuration: configuration, spool: spool, client: client) { event in
                if event.isWarning { logger.warning(event.description) } else { logger.info(event.description) }
            }
        case .file:
            fileSink = FileSink(path: c.effectiveFilePath, maxBytes: c.fileMaxBytes, spool: spool)
        }

        let reader = GPSDReader(configuration: .init(endpoint: c.gpsd, noDataTimeout: .milliseconds(Int64(c.noDataTimeout * 1000))))
        let signals = SignalSource([SIGINT, SIGTERM]) { number in
            logger.info("stopping on signal", ["signal": number == SIGINT ? "SIGINT" : "SIGTERM"])
            reader.stop()
        }
        let stopping = Flag()
        let uploadTask = Task { [uploader, fileSink] in
            if let uploader { await uploader.run() }
            if let fileSink {
                while !stopping.isSet {
                    do { try await fileSink.drain() } catch { logger.error("file sink: \(error)") }
                    try? await Task.sleep(for: .seconds(1))
                }
            }
        }
        let counters = PipelineCounters()
        let housekeeping = Task { [uploader] in
            var lastSummary = ContinuousClock.now
            while !stopping.isSet {
                try? await Task.sleep(for: notifier.watchdogInterval ?? .seconds(5))
                if stopping.isSet { break }
                let stats = try? await spool.statistics()
                let (fixes, kept) = counters.snapshot
                let uploaded = uploader?.statistics.uploaded ?? 0
                let status = "\(fixes) fixes, \(kept) kept, \(uploaded) uploaded, \(stats?.queued ?? 0) queued"
                notifier.notify("WATCHDOG=1\nSTATUS=\(status)")
                if ContinuousClock.now - lastSummary >= .seconds(300) {
                    logger.info("summary: \(status)")
                    lastSummary = .now
                }
            }
        }
        reader.start()
        notifier.notify("READY=1\nSTATUS=waiting for gpsd")
        logger.info("gpstrackd \(Version.string) started", [
            "gpsd": c.gpsd.description, "sink": c.sink.rawValue, "device_id": c.deviceID, "state_dir": c.stateDirectory,
        ])

        var chain = FilterChain(configuration: c.filter)
        var episodes = RejectionEpisodes()
        var failed = false
        for await event in reader.events {
            guard case let .location(location) = event else {
                ReaderEventLog.log(event, to: logger)
                continue
            }
            let clock = SystemClockStatus.read()
            let decision = chain.process(location, clock: clock)
            if let (level, message) = episodes.record(decision.rejection, location, configuration: chain.configuration, clock: clock) {
                logger.log(level, message)
            }
            for kept in decision.kept where !(await store(kept, spool: spool, logger: logger)) { failed = true }
            counters.add(fixes: 1, kept: decision.kept.count)
            if !decision.kept.isEmpty { uploader?.notifyAppended() }
        }
        notifier.notify("STOPPING=1")
        if let last = chain.finish(), !(await store(last, spool: spool, logger: logger)) { failed = true }
        stopping.set()
        uploader?.stop()
        await uploadTask.value
        if let fileSink { _ = try? await fileSink.drain() }
        housekeeping.cancel()
        withExtendedLifetime(signals) {}
        let queued = (try? await spool.statistics().queued) ?? -1
        logger.info("gpstrackd stopped", ["filter": chain.counters.summary, "queued": String(queued)])
        return failed ? .ioError : .success
    }

    private func store(_ kept: KeptLocation, spool: Spool, logger: Logger) async -> Bool {
        do {
            try await spool.append(kept.location, kept: kept.trigger)
            return true
        } catch {
            logger.error("could not store a position: \(error)")
            return false
        }
    }
}

/// A stop flag shared with the daemon's tasks.
final class Flag: Sendable {
    private let value = Atomic<Bool>(false)
    var isSet: Bool { value.load(ordering: .acquiring) }
    func set() { value.store(true, ordering: .releasing) }
}

/// Fixes seen and kept, for the status line.
final class PipelineCounters: Sendable {
    private let value = Mutex((fixes: 0, kept: 0))
    var snapshot: (Int, Int) { value.withLock { ($0.fixes, $0.kept) } }
    func add(fixes: Int, kept: Int) {
        value.withLock {
            $0.fixes += fixes
            $0.kept += kept
        }
    }
}
