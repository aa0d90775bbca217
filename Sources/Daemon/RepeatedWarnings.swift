import Synchronization

/// Rate-limits a warning that can repeat: the first occurrence is logged, then at most one line
/// per `interval` saying how many were suppressed in between.
final class RepeatedWarnings: Sendable {
    private let interval: Duration
    private let state = Mutex<[String: (last: ContinuousClock.Instant, suppressed: Int)]>([:])

    init(interval: Duration = .seconds(60)) {
        self.interval = interval
    }

    /// Logs `message` under `key` unless one was logged less than `interval` ago.
    func log(_ key: String, _ message: String, level: LogLevel = .warning, to logger: Logger, at now: ContinuousClock.Instant = .now) {
        let line = state.withLock { entries -> String? in
            if let entry = entries[key], now - entry.last < interval {
                entries[key] = (entry.last, entry.suppressed + 1)
                return nil
            }
            let suppressed = entries[key]?.suppressed ?? 0
            entries[key] = (now, 0)
            return suppressed > 0 ? "\(message) (\(suppressed) more like this since the last report)" : message
        }
        if let line { logger.log(level, line) }
    }
}
