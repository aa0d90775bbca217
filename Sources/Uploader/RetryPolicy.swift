/// Exponential backoff with full jitter: the n-th consecutive failure waits a random time in
/// [0, min(cap, base · 2ⁿ)], and never less than the service's `Retry-After`.
/// Full jitter spreads a fleet's retries after an outage instead of synchronizing them.
public struct RetryPolicy: Sendable, Equatable {
    public var base: Double = 1
    public var cap: Double = 300

    public init(base: Double = 1, cap: Double = 300) {
        self.base = base
        self.cap = cap
    }

    /// The upper bound for the `failures`-th consecutive failure (1-based).
    public func ceiling(failures: Int) -> Double {
        let exponent = min(max(failures - 1, 0), 30)
        return min(cap, base * Double(1 << exponent))
    }

    /// Seconds to wait; `unit` is a random number in [0, 1).
    public func delay(failures: Int, retryAfter: Double?, unit: Double) -> Double {
        max(retryAfter ?? 0, ceiling(failures: failures) * min(max(unit, 0), 1))
    }
}
