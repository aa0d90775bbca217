/// A loop's sign of life and its own promise: "I went round at `lastSign`, and when all is well I
/// go round again within `promise`". An idle uploader may wait a whole `upload-interval` (up to an
/// hour); the reader goes round every second or two. A watchdog that held every loop to one
/// figure would either call a healthy idle loop stuck or never notice a stuck busy one.
struct Liveness: Sendable, Equatable {
    var lastSign: ContinuousClock.Instant
    /// The longest the loop may go without a sign while healthy, slack included.
    var promise: Duration

    /// Slack over a loop's longest planned wait: a loop that is due is late by scheduling, a slow
    /// disk or a busy machine before it is stuck.
    static let slack = Duration.seconds(50)

    /// A loop that plans to wait at most `longestWait` between rounds, with `slack` over it.
    init(lastSign: ContinuousClock.Instant, longestWait: Duration) {
        self.init(lastSign: lastSign, promise: longestWait + Self.slack)
    }

    init(lastSign: ContinuousClock.Instant, promise: Duration) {
        self.lastSign = lastSign
        self.promise = promise
    }

    /// Whether the loop kept its promise at `now`.
    func isKept(at now: ContinuousClock.Instant) -> Bool {
        now - lastSign <= promise
    }
}

/// The watchdog's verdict over every watched service: `WATCHDOG=1` only while each keeps its
/// own promise. Pure, with the instant passed in.
struct Watchdog: Sendable {
    /// The services that broke their promise at `now`, by name, in the order given.
    static func stuck(_ services: [(name: String, liveness: Liveness?)], at now: ContinuousClock.Instant) -> [String] {
        services.compactMap { service in
            guard let liveness = service.liveness, !liveness.isKept(at: now) else { return nil }
            return service.name
        }
    }
}
