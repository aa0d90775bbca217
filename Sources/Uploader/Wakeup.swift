import Synchronization

/// Wakes a waiting loop early: `signal()` from anywhere, `wait(upTo:)` in the one loop that waits.
/// Signals coalesce; one pending signal is kept for the next wait.
///
/// A wait ended by a signal leaves its timer running for the next wait: a loop woken for each
/// position and then waiting `upTo` the same interval again arms about one timer per interval,
/// not one per wake-up (a timer costs more CPU than the wake-up itself).
public final class Wakeup: Sendable {
    private struct State {
        var pending = false
        var waiter: CheckedContinuation<Void, Never>?
        /// When the current waiter's wait ends.
        var deadline: ContinuousClock.Instant?
        /// The earliest deadline a sleeper task is armed for; nil when none is.
        var armed: ContinuousClock.Instant?
    }

    private let state = Mutex(State())
    private let clock = ContinuousClock()

    public init() {}

    public func signal() {
        let waiter = state.withLock { s -> CheckedContinuation<Void, Never>? in
            if let waiter = s.waiter {
                s.waiter = nil
                s.deadline = nil
                return waiter
            }
            s.pending = true
            return nil
        }
        waiter?.resume()
    }

    /// Returns after `duration`, or as soon as a signal arrives (at once if one is pending).
    public func wait(upTo duration: Duration) async {
        let deadline = clock.now.advanced(by: duration)
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            enum Outcome { case now, waiting, arm }
            let outcome = state.withLock { s -> Outcome in
                if s.pending {
                    s.pending = false
                    return .now
                }
                s.waiter = continuation
                s.deadline = deadline
                if let armed = s.armed, armed <= deadline { return .waiting }
                s.armed = deadline
                return .arm
            }
            switch outcome {
            case .now: continuation.resume()
            case .waiting: break
            case .arm: Task { [self] in await sleep(until: deadline) }
            }
        }
    }

    /// A sleeper: at its time it ends the wait that is due, and sleeps on for a wait that is not.
    private func sleep(until first: ContinuousClock.Instant) async {
        var wake = first
        while true {
            try? await Task.sleep(until: wake, clock: clock)
            let (due, next) = state.withLock { s -> (CheckedContinuation<Void, Never>?, ContinuousClock.Instant?) in
                if s.armed == wake { s.armed = nil }
                guard let deadline = s.deadline else { return (nil, nil) }
                if deadline <= clock.now {
                    let waiter = s.waiter
                    s.waiter = nil
                    s.deadline = nil
                    return (waiter, nil)
                }
                // The wait outlives this sleeper's time: sleep on, unless an earlier sleeper covers it.
                if let armed = s.armed, armed <= deadline { return (nil, nil) }
                s.armed = deadline
                return (nil, deadline)
            }
            due?.resume()
            guard let next else { return }
            wake = next
        }
    }
}
