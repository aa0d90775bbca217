import Dispatch
import Glibc

/// POSIX signals as an async sequence (swift-service-lifecycle's `UnixSignalsSequence`), caught
/// through Dispatch rather than a C handler, so a stop request takes effect at once without a
/// free thread in Swift's shared pool.
///
/// From creation the signals' default actions are off; when iteration ends (the consumer is
/// cancelled) or the sequence is released, each signal's previous disposition is restored, so a
/// library or a test that catches the same signal afterwards gets it.
final class UnixSignals: AsyncSequence, Sendable {
    typealias Element = Int32
    private let stream: AsyncStream<Int32>

    /// Catches `numbers` from now on (so a signal that comes before the first `next()` waits in
    /// the sequence rather than taking its default action).
    init(_ numbers: [Int32]) {
        let (stream, continuation) = AsyncStream.makeStream(of: Int32.self)
        self.stream = stream
        let queue = DispatchQueue(label: "gpstrackd.signals")
        let caught = numbers.map { number -> Caught in
            var ignore = sigaction()
            ignore.__sigaction_handler.sa_handler = SIG_IGN
            var previous = sigaction()
            sigaction(number, &ignore, &previous)
            let source = DispatchSource.makeSignalSource(signal: number, queue: queue)
            source.setEventHandler { continuation.yield(number) }
            source.resume()
            return Caught(number: number, source: source, previous: previous)
        }
        let restorer = Restorer(caught)
        continuation.onTermination = { _ in restorer.restore() }
        // Dispatch arms a signal source on its own thread a moment after `resume()`, by putting
        // its handler in place of ours; until then the signal is ignored, and a SIGTERM sent just
        // after start (a supervisor's, a test's) would be lost. Return once it is armed.
        for number in numbers { Self.waitUntilArmed(number) }
    }

    /// Waits (200 ms at most) until `number`'s disposition is no longer the SIG_IGN set above.
    private static func waitUntilArmed(_ number: Int32) {
        for _ in 0..<200 {
            var current = sigaction()
            sigaction(number, nil, &current)
            if unsafeBitCast(current.__sigaction_handler.sa_handler, to: Int.self) != unsafeBitCast(SIG_IGN, to: Int.self) { return }
            usleep(1000)
        }
    }

    /// One consumer.
    func makeAsyncIterator() -> AsyncStream<Int32>.Iterator { stream.makeAsyncIterator() }

    private struct Caught {
        var number: Int32
        var source: any DispatchSourceSignal
        var previous: sigaction
    }

    /// Cancels the sources and puts the previous dispositions back. `@unchecked`: `sigaction`
    /// holds C function pointers; the value is written once at creation and read once, by
    /// `restore()`, which AsyncStream calls at most once.
    private final class Restorer: @unchecked Sendable {
        private let caught: [Caught]
        init(_ caught: [Caught]) { self.caught = caught }
        func restore() {
            for entry in caught {
                entry.source.cancel()
                var previous = entry.previous
                sigaction(entry.number, &previous, nil)
            }
        }
    }
}
