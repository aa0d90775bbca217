import Synchronization

/// One exchange's answer, handed to its waiting caller exactly once: by the worker that
/// performed it, or by the caller's cancellation, whichever comes first (the other is dropped).
final class PendingAnswer: Sendable {
    private enum State {
        case unarmed
        case waiting(CheckedContinuation<Result<HTTPResponse, HTTPError>, Never>)
        /// Answered before anyone waited (cancelled before the request started).
        case early(Result<HTTPResponse, HTTPError>)
        case answered
    }

    private let state = Mutex(State.unarmed)

    /// Arms the continuation; false when an answer came first (it has been given), so the
    /// request need not start.
    func wait(with continuation: CheckedContinuation<Result<HTTPResponse, HTTPError>, Never>) -> Bool {
        let early = state.withLock { state -> Result<HTTPResponse, HTTPError>? in
            if case let .early(result) = state {
                state = .answered
                return result
            }
            state = .waiting(continuation)
            return nil
        }
        guard let early else { return true }
        continuation.resume(returning: early)
        return false
    }

    /// Gives `result` to the caller unless it was answered already.
    func resume(with result: Result<HTTPResponse, HTTPError>) {
        let waiting = state.withLock { state -> CheckedContinuation<Result<HTTPResponse, HTTPError>, Never>? in
            switch state {
            case let .waiting(continuation):
                state = .answered
                return continuation
            case .unarmed:
                state = .early(result)
                return nil
            case .early, .answered:
                return nil
            }
        }
        waiting?.resume(returning: result)
    }
}
