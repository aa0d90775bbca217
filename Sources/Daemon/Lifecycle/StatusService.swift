import Glibc
import Spool
import Synchronization
import SystemIO
import TrackingCore
import Uploader

/// What the daemon tells the outside, every `interval` (half of systemd's watchdog, else 5 s):
/// `status.json` and the metrics file, `STATUS=`, `WATCHDOG=1` while every watched service keeps
/// its own promise (`Liveness`), a summary line every five minutes, and the status line on SIGUSR1.
///
/// Listed first, it stops last: its final round shows the daemon as it stopped.
final class StatusService: Service {
    let name = "status"
    /// The loops the watchdog watches, by name.
    typealias Watched = (name: String, liveness: @Sendable () -> Liveness?)

    private let report: StatusReport
    private let spool: Spool
    private let watched: [Watched]
    private let interval: Duration
    private let notify: @Sendable (String) -> Void
    private let statusPath: String
    private let metricsPath: String?
    private let logger: Logger
    private let repeated: RepeatedWarnings
    private let now: @Sendable () -> ContinuousClock.Instant
    private let wakeup = Wakeup()
    /// SIGUSR1, caught from creation (before `run()`, a signal would end the process).
    private let statusRequests = UnixSignals([SIGUSR1])
    private let state = Mutex(State())

    private struct State {
        var stopping = false
        var lastSummary: ContinuousClock.Instant?
    }

    static let summaryInterval = Duration.seconds(300)

    init(report: StatusReport, spool: Spool, watched: [Watched], interval: Duration, notify: @escaping @Sendable (String) -> Void,
         statusPath: String, metricsPath: String?, logger: Logger, repeated: RepeatedWarnings,
         now: @escaping @Sendable () -> ContinuousClock.Instant = { .now }) {
        self.report = report
        self.spool = spool
        self.watched = watched
        self.interval = interval
        self.notify = notify
        self.statusPath = statusPath
        self.metricsPath = metricsPath
        self.logger = logger
        self.repeated = repeated
        self.now = now
    }

    func run() async {
        let usr1 = Task { [self] in
            for await _ in statusRequests {
                let status = await report.status(try? await spool.statistics())
                logger.notice("status: " + status.summary.split(separator: "\n").joined(separator: "; "))
            }
        }
        await publish(try? await spool.statistics())
        state.withLock { $0.lastSummary = now() }
        while !state.withLock({ $0.stopping }) {
            await wakeup.wait(upTo: interval)
            if state.withLock({ $0.stopping }) { break }
            await tick()
        }
        usr1.cancel()
        await publish(try? await spool.statistics())
    }

    func shutDownGracefully() {
        state.withLock { $0.stopping = true }
        wakeup.signal()
    }

    /// One round: the files, `STATUS=` with `WATCHDOG=1` while every loop keeps its promise, and
    /// the summary when it is due. Returns the loops that broke their promise.
    @discardableResult
    func tick() async -> [String] {
        let stats = try? await spool.statistics()
        let status = await publish(stats)
        let at = now()
        let stuck = Watchdog.stuck(watched.map { ($0.name, $0.liveness()) }, at: at)
        notify((stuck.isEmpty ? "WATCHDOG=1\n" : "") + "STATUS=" + status.serviceStatus(at: report.wallClock()))
        if !stuck.isEmpty {
            let alive = watched.map(\.name).filter { !stuck.contains($0) }
            repeated.log("watchdog", "a loop stopped going round (stuck: \(stuck.joined(separator: ", "))"
                + (alive.isEmpty ? "" : "; alive: \(alive.joined(separator: ", "))") + "); withholding the watchdog ping",
                level: .error, to: logger)
        }
        let summaryDue = state.withLock { s -> Bool in
            guard let last = s.lastSummary, at - last >= Self.summaryInterval else { return false }
            s.lastSummary = at
            return true
        }
        if summaryDue {
            logger.info("summary: \(status.filter.in) fixes in, \(status.filter.kept) kept, \(status.upload.uploaded) uploaded, \(status.spool.queued) queued")
        }
        return stuck
    }

    /// What went wrong replacing `path`, or nil. Atomic, not durable: the next round rewrites it,
    /// and `gpstrackd status` reads the spool when it finds no usable snapshot.
    private static func replace(_ path: String, with text: String) -> FileError? {
        do throws(FileError) {
            try SmallFile.replace(path, with: text, durable: false)
            return nil
        } catch {
            return error
        }
    }

    /// Writes status.json and the metrics file; returns what was written.
    @discardableResult
    private func publish(_ stats: SpoolStatistics?) async -> DaemonStatus {
        let status = await report.status(stats)
        if let problem = Self.replace(statusPath, with: status.json() + "\n") {
            repeated.log("status-file", "cannot write \(statusPath): \(problem); gpstrackd status shows old figures until it can", to: logger)
        }
        if let metricsPath, let problem = Self.replace(metricsPath, with: status.metrics) {
            repeated.log("metrics-file", "cannot write the metrics file \(metricsPath): \(problem)", to: logger)
        }
        return status
    }
}
