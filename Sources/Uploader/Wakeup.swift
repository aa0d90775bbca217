import Synchronization

/// Wakes a waiting loop early: `signal()` from anywhere, `wait(upTo:)` in the one loop that waits.
/// Signals coalesce; one pending signal is kept for the next wait.
public final class Wakeup: Sendable {
    private struct State {
        var pending = false
        var waiter: CheckedContinuation<Void, Never>?
        var generation = 0
    }

    private let state = Mutex(State())

    public init() {}

    public func signal() {
        let waiter = state.withLock { s -> CheckedContinuation<Void, Never>? in
            if let waiter = s.waiter {
                s.waiter = nil
                return waiter
            }
            s.pending = true
            return nil
        }
        waiter?.resume()
    }

    /// Returns after `duration`, or as soon as a signal arrives (at once if one is pending).
    public func wait(upTo duration: Duration) async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let generation = state.withLock { s -> Int? in
                if s.pending {
                    s.pending = false
                    return nil
                }
                s.generation += 1
                s.waiter = continuation
                return s.generation
            }
            guard let generation else {
                continuation.resume()
                return
            }
            Task { [self] in
                try? await Task.sleep(for: duration)
                let waiter = state.withLock { s -> CheckedContinuation<Void, Never>? in
                    guard s.generation == generation, let waiter = s.waiter else { return nil }
                    s.waiter = nil
                    return waiter
                }
                waiter?.resume()
            }
        }
    }
}
