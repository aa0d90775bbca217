import Glibc
import GPSDReader
import TrackingCore

/// `gpstrackd watch`: read gpsd and print each `Location` as one JSON line on stdout.
public struct WatchCommand: Sendable {
    public var options: WatchOptions
    public var logger: Logger

    public init(options: WatchOptions, logger: Logger) {
        self.options = options
        self.logger = logger
    }

    /// Runs until SIGINT/SIGTERM or until stdout goes away.
    public func run() async -> ExitCode {
        signal(SIGPIPE, SIG_IGN)
        let reader = GPSDReader(configuration: .init(endpoint: options.endpoint, noDataTimeout: options.noDataTimeout))
        let logger = self.logger
        let signals = SignalSource([SIGINT, SIGTERM]) { number in
            logger.info("stopping on signal", ["signal": number == SIGINT ? "SIGINT" : "SIGTERM"])
            reader.stop()
        }
        reader.start()
        var status = ExitCode.success
        for await event in reader.events {
            if case let .location(location) = event {
                if !FileOutput.write(LocationJSON.line(for: location) + "\n", to: 1) {
                    logger.error("stdout closed; stopping")
                    reader.stop()
                    status = .ioError
                }
            } else {
                ReaderEventLog.log(event, to: logger)
            }
        }
        withExtendedLifetime(signals) {}
        logger.info("watch finished", ["counts": reader.statistics.summary])
        return status
    }
}
