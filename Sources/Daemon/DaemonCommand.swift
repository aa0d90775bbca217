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
        let parts: DaemonParts
        do {
            parts = try await DaemonParts.assemble(self, logger: logger, notifier: notifier)
        } catch {
            logger.error(error.message)
            return error.exitCode
        }
        let group = ServiceGroup(services: parts.services, signals: UnixSignals([SIGINT, SIGTERM]), deadline: Self.shutdownDeadline,
                                 events: { Self.log($0, logger, notifier) })
        let (ending, _) = await group.run()
        withExtendedLifetime(parts.lock) {}
        let queued = (try? await parts.spool.statistics().queued) ?? -1
        logger.info("gpstrackd stopped", ["filter": parts.stage.counters.summary, "queued": String(queued)])
        if parts.storeFailed.isSet { return .ioError }
        return ending == .cancelled ? .temporaryFailure : .success
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
