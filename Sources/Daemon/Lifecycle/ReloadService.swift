import Glibc
import Synchronization
import TrackingCore
import Uploader

/// SIGHUP: reads the configuration again (file, environment, flags) and applies what can change
/// while running — filters, log level, the sink's batching and interval, the tracker's filtering —
/// naming the keys it applied and every changed key that needs a restart (the key table says which
/// is which: `DaemonSettings.Key.live`). A configuration that does not load is
/// rejected whole; the running one stays.
final class ReloadService: Service {
    let name = "reload"
    private let running: DaemonConfiguration
    private let load: @Sendable () throws -> DaemonSettings.Loaded
    private let logger: Logger
    private let stage: FilterStage
    private let sink: Uploader
    private let filtering: TrackerFilteringService?
    private let latch = ShutdownLatch()
    /// The configuration last loaded (what the live keys are compared with).
    private let current: Mutex<DaemonConfiguration>
    /// SIGHUP, caught from creation (before `run()`, a signal would end the process).
    private let hangups = UnixSignals([SIGHUP])

    init(running: DaemonConfiguration, load: @escaping @Sendable () throws -> DaemonSettings.Loaded, logger: Logger,
         stage: FilterStage, sink: Uploader, filtering: TrackerFilteringService?) {
        self.running = running
        current = Mutex(running)
        self.load = load
        self.logger = logger
        self.stage = stage
        self.sink = sink
        self.filtering = filtering
    }

    func run() async {
        let listening = Task { [self] in
            for await _ in hangups { reload() }
        }
        await latch.wait()
        listening.cancel()
    }

    func shutDownGracefully() { latch.open() }

    /// What one reload did, by key.
    struct Outcome: Sendable, Equatable {
        /// Live keys whose new value is now in force.
        var applied: [String] = []
        /// Keys whose value differs from the one the daemon started with and needs a restart.
        var needRestart: [String] = []
    }

    /// One reload: the configuration read again and applied; nil when it was rejected.
    @discardableResult
    func reload() -> Outcome? {
        let next: DaemonSettings.Loaded
        do {
            next = try load()
        } catch {
            logger.error("configuration reload rejected: \(error); keeping the running configuration")
            return nil
        }
        for warning in next.warnings { logger.warning(warning) }
        let n = next.configuration
        logger.level = n.logLevel
        var filter = n.filter
        filter.trackerFiltering = filtering?.snapshot.filtering ?? .none
        stage.reconfigure(filter)
        filtering?.reconsider(configured: n.trackerFiltering)
        sink.apply(n)
        let previous = current.withLock { c -> DaemonConfiguration in
            defer { c = n }
            return c
        }
        let outcome = Self.outcome(started: running, previous: previous, next: n)
        logger.info("configuration reloaded: " + (outcome.applied.isEmpty ? "no live setting changed" : "applied " + outcome.applied.joined(separator: ", ")))
        if !outcome.needRestart.isEmpty {
            logger.warning("changed settings that need a restart were not applied: \(outcome.needRestart.joined(separator: ", ")); restart gpstrackd for them")
        }
        return outcome
    }

    /// By the key table: a live key is applied when it changed since the last reload; any other
    /// key needs a restart while it differs from what the daemon started with.
    static func outcome(started: DaemonConfiguration, previous: DaemonConfiguration, next: DaemonConfiguration) -> Outcome {
        var outcome = Outcome()
        for key in DaemonSettings.keys {
            if key.live {
                if key.show(previous) != key.show(next) { outcome.applied.append(key.name) }
            } else if key.show(started) != key.show(next) {
                outcome.needRestart.append(key.name)
            }
        }
        return outcome
    }
}
