import TrackingCore

/// What the fleet's shared quota and the SIM's allowance say: throttled answers lower the rate
/// (`RequestRate`), answers raise it, and every request's bytes count against `data-budget`.
extension Uploader {
    /// A throttled answer to a request sent at `sent`: the rate comes down (once a round trip),
    /// the bucket follows it, and nothing goes until a random part of the new interval has passed;
    /// under a `quota-share`, only until the slide has passed.
    /// `served`: the request itself was answered (a 200 whose items were throttled), so it took
    /// its place in the quota's window and, under a share, its token stays spent.
    func throttled(sent: ContinuousClock.Instant, retryAfter: Double?, reason: String, served: Bool = false) {
        let now = clock.now
        let (cut, rate, ceiling, share) = state.withLock { s in
            s.statistics.throttledRequests += 1
            s.statistics.lastError = reason
            let share = s.rate.share
            let cut = s.rate.throttled(sent: sent, at: now)
            let delay = s.rate.retryDelay(retryAfter: retryAfter, unit: random())
            s.schedule.hold(until: now + .milliseconds(Int64(delay * 1000)))
            return (cut, s.rate.current, s.rate.ceiling, share)
        }
        switch cut {
        case .none: return
        case .slides:
            // A request the window turned away used none of the quota: its token comes back, so
            // that it goes after the slide, and the device's rhythm goes on from that new phase.
            if !served { bucket.withLock { $0.refund() } }
            return
        case .lowered, .episodeBegins, .shareOverrun: break
        }
        bucket.withLock { $0 = TokenBucket(rate: rate, burst: 1) }
        if cut == .episodeBegins { events(.throttled(rate: rate, ceiling: ceiling)) }
        if cut == .shareOverrun, let share { events(.quotaShareOverrun(share: share, rate: rate)) }
    }

    /// What the destination's transport has put on the wire so far, against the day's budget.
    func recordBytes() {
        let total = destination.bytesOnTheWire
        let wall = wallClock()
        state.withLock { $0.budget.record(total: total, at: wall) }
    }

    /// An answer that was not throttled: the rate may rise (see `RequestRate`).
    func answered() {
        let now = clock.now
        let (rate, changed) = state.withLock { s -> (Double, Bool) in
            let before = s.rate.current
            s.rate.answered(at: now)
            return (s.rate.current, s.rate.current != before)
        }
        if changed { bucket.withLock { $0.setRate(rate) } }
    }
}
