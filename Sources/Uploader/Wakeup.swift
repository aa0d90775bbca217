/// Wakes a waiting loop early: `signal()` from anywhere, `wait(upTo:)` in the loop.
/// Signals coalesce; one pending signal is kept for the next wait.
final class Wakeup: Sendable {
    private let stream: AsyncStream<Void>
    private let continuation: AsyncStream<Void>.Continuation

    init() {
        (stream, continuation) = AsyncStream.makeStream(of: Void.self, bufferingPolicy: .bufferingNewest(1))
    }

    func signal() {
        continuation.yield()
    }

    /// Returns after `duration`, or as soon as a signal arrives.
    func wait(upTo duration: Duration) async {
        let stream = self.stream
        await withTaskGroup(of: Void.self) { group in
            group.addTask { try? await Task.sleep(for: duration) }
            group.addTask {
                for await _ in stream { break }
            }
            await group.next()
            group.cancelAll()
        }
    }
}
