import Glibc
import Spool
import Synchronization
import SystemIO
import TrackingCore
import Uploader

/// The `file` sink: drains the spool into JSON lines (the `watch` schema plus `"kept"`), fsynced
/// before the rows are acknowledged, rotated to `<file>.1` beyond `maxBytes`.
///
/// It runs its own loop (`run`), like the uploader: a drain every `interval` (one fsync per
/// interval rather than per position; the positions are durable in the spool meanwhile), backoff
/// after a failed write (doubling to 5 min), counters for status and metrics, and the liveness the
/// watchdog asks of every loop.
public final class FileSink: Sendable {
    /// What the sink has done, for status and metrics.
    public struct Statistics: Sendable, Equatable {
        public var written = 0
        public var lastSuccess: FixTime?
        public var lastError: String?
        /// Failed drains in a row (0 once one succeeds).
        public var failures = 0
    }

    /// A write that failed: the file and what the system said, read where it failed.
    struct WriteFailure: Error, CustomStringConvertible {
        var path: String
        var reason: String
        var description: String { "cannot write \(path): \(reason)" }
    }

    public let path: String
    public let maxBytes: Int64
    private let spool: Spool
    private let settings: Mutex<Double>
    private let state = Mutex(Statistics())
    private let stopping = Atomic<Bool>(false)
    private let wakeup = Wakeup()
    private let loopTick = Mutex(ContinuousClock.now)
    private let wallClock: @Sendable () -> FixTime
    private let onError: @Sendable (String) -> Void

    /// `onError` hears each failed drain of the loop (`run()`), with what the system said.
    public init(path: String, maxBytes: Int64, spool: Spool, interval: Double = 5,
                wallClock: @escaping @Sendable () -> FixTime = SystemClock.now,
                onError: @escaping @Sendable (String) -> Void = { _ in }) {
        self.onError = onError
        self.path = path
        self.maxBytes = maxBytes
        self.spool = spool
        settings = Mutex(interval)
        self.wallClock = wallClock
    }

    public var statistics: Statistics { state.withLock { $0 } }

    /// Seconds between drains; `update(interval:)` changes it while running (a reload).
    public var interval: Double { settings.withLock { $0 } }

    public func update(interval: Double) {
        settings.withLock { $0 = interval }
        wakeup.signal()
    }

    /// When the loop last went round, and the longest it waits when all is well.
    public var lastLoop: ContinuousClock.Instant { loopTick.withLock { $0 } }
    public var longestWait: Duration { .milliseconds(Int64(max(interval, Self.maxBackoff) * 1000)) }

    static let maxBackoff = 300.0

    /// Drains every `interval` until `stop()`, then once more.
    public func run() async {
        while !stopping.load(ordering: .acquiring) {
            loopTick.withLock { $0 = .now }
            var wait = max(0.1, interval)
            do {
                try await drain()
            } catch {
                onError("file sink: \(error)")
                let failures = state.withLock { $0.failures }
                wait = min(Self.maxBackoff, max(wait, Double(1 << min(failures, 8))))
            }
            await wakeup.wait(upTo: .milliseconds(Int64(wait * 1000)))
        }
        do {
            try await drain()
        } catch {
            onError("file sink: \(error)")
        }
    }

    public func stop() {
        stopping.store(true, ordering: .releasing)
        wakeup.signal()
    }

    /// Moves everything queued into the file; returns how many positions were written.
    @discardableResult
    public func drain() async throws -> Int {
        var written = 0
        while true {
            let rows = try await spool.peek(limit: 500)
            if rows.isEmpty { break }
            let text = rows.map { row in
                LocationJSON.line(for: row.location, extra: row.kept.map { [("kept", $0.rawValue)] } ?? []) + "\n"
            }.joined()
            if let failure = append(text) {
                await spool.release(rows.map(\.id))
                state.withLock {
                    $0.failures += 1
                    $0.lastError = failure.description
                }
                throw failure
            }
            try await spool.ack(rows.map(\.id))
            written += rows.count
            state.withLock {
                $0.written += rows.count
                $0.lastSuccess = wallClock()
            }
        }
        state.withLock { $0.failures = 0 }
        return written
    }

    /// Appends and fsyncs; the failure names the call and the error it returned, read at once.
    private func append(_ text: String) -> WriteFailure? {
        var info = stat()
        if stat(path, &info) == 0, Int64(info.st_size) >= maxBytes {
            rename(path, path + ".1")
        }
        do throws(FileError) {
            try SmallFile.append(text, to: path)
            return nil
        } catch {
            return WriteFailure(path: path, reason: error.errno.map { error.doing.hasPrefix("fsync") ? "fsync: \($0)" : "\($0)" } ?? "\(error.reason)")
        }
    }
}
