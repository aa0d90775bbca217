/// A one-way gate a service's `run()` waits at until it is asked to shut down.
final class ShutdownLatch: Sendable {
    private let stream: AsyncStream<Never>
    private let continuation: AsyncStream<Never>.Continuation

    init() { (stream, continuation) = AsyncStream.makeStream(of: Never.self) }

    /// Opens the gate; safe to call more than once.
    func open() { continuation.finish() }

    /// Returns once the gate is open (at once if it already is). One waiter.
    func wait() async {
        for await _ in stream {}
    }
}
