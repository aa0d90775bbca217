import TrackingCore

/// A token bucket: `rate` tokens a second, at most `burst` saved up.
///
/// With the default burst of 1 the bucket spaces requests evenly (1/rate apart), so no window of
/// one second ever holds more than `rate` requests — the way the tracker's quota counts them.
/// Instants are passed in, so tests need no clock.
public struct TokenBucket: Sendable {
    public private(set) var rate: Double
    public let burst: Double
    private var tokens: Double
    private var updated: ContinuousClock.Instant?

    /// `tokens`: what it holds at first (full by default). Part of one token makes the first
    /// request wait that part of an interval: a random phase.
    public init(rate: Double, burst: Double = 1, tokens: Double? = nil) {
        self.rate = max(rate, 0.001)
        self.burst = max(1, burst)
        self.tokens = min(self.burst, max(0, tokens ?? self.burst))
    }

    /// Takes a token if one is available at `now`; otherwise returns how long until one is.
    public mutating func take(at now: ContinuousClock.Instant) -> Duration? {
        refill(at: now)
        if tokens >= 1 {
            tokens -= 1
            return nil
        }
        let seconds = (1 - tokens) / rate
        return .nanoseconds(Int64((seconds * 1e9).rounded(.up)))
    }

    /// A new rate from now on; what was saved up stays.
    public mutating func setRate(_ value: Double) {
        rate = max(value, 0.001)
    }

    /// Gives back a token taken for a request that was not sent.
    public mutating func refund() {
        tokens = min(burst, tokens + 1)
    }

    private mutating func refill(at now: ContinuousClock.Instant) {
        if let updated {
            tokens = min(burst, tokens + (now - updated).seconds * rate)
        }
        updated = now
    }
}
