import Dispatch
import Glibc

/// Catches POSIX signals through Dispatch rather than a C handler, and calls `handler` on a
/// dedicated queue: a stop request takes effect at once, without waiting for a free thread in
/// Swift's shared pool.
public final class SignalSource {
    private let sources: [any DispatchSourceSignal]

    /// Starts catching `numbers` (their default action is disabled while this object lives).
    public init(_ numbers: [Int32], handler: @escaping @Sendable (Int32) -> Void) {
        let queue = DispatchQueue(label: "gpstrackd.signals")
        sources = numbers.map { number in
            signal(number, SIG_IGN)
            let source = DispatchSource.makeSignalSource(signal: number, queue: queue)
            source.setEventHandler { handler(number) }
            source.resume()
            return source
        }
    }

    deinit {
        for source in sources { source.cancel() }
    }
}
