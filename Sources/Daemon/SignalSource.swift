import Dispatch
import Glibc

/// Delivers POSIX signals as an async sequence, through Dispatch rather than a C handler.
public final class SignalSource {
    public let signals: AsyncStream<Int32>
    private let sources: [any DispatchSourceSignal]

    /// Starts catching `numbers` (their default action is disabled while this object lives).
    public init(_ numbers: [Int32]) {
        let (stream, continuation) = AsyncStream.makeStream(of: Int32.self)
        signals = stream
        let queue = DispatchQueue(label: "gpstrackd.signals")
        sources = numbers.map { number in
            signal(number, SIG_IGN)
            let source = DispatchSource.makeSignalSource(signal: number, queue: queue)
            source.setEventHandler { continuation.yield(number) }
            source.resume()
            return source
        }
    }

    deinit {
        for source in sources { source.cancel() }
    }
}
