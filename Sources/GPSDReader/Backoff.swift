/// Capped exponential backoff: `initial`, doubling each attempt, never more than `maximum`.
public struct Backoff: Sendable, Equatable {
    public let initial: Duration
    public let maximum: Duration
    private var current: Duration

    public init(initial: Duration = .seconds(1), maximum: Duration = .seconds(30)) {
        self.initial = initial
        self.maximum = max(initial, maximum)
        self.current = initial
    }

    /// The delay before the next attempt; each call doubles the following one up to the cap.
    public mutating func next() -> Duration {
        let delay = current
        current = min(current * 2, maximum)
        return delay
    }

    /// Starts over from `initial` (after a success).
    public mutating func reset() {
        current = initial
    }
}
