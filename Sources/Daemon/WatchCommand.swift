import Glibc
import GPSDReader
import SystemIO
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
        let reader = GPSDReader(configuration: .init(
            endpoint: options.endpoint, noDataTimeout: options.noDataTimeout, accuracySource: options.accuracySource))
        let logger = self.logger
        let stops = UnixSignals([SIGINT, SIGTERM])
        let signals = Task {
            for await number in stops {
                logger.info("stopping on signal", ["signal": number == SIGINT ? "SIGINT" : "SIGTERM"])
                reader.stop()
            }
        }
        reader.start()
        var status = ExitCode.success
        var chain = options.filter ? FilterChain(configuration: options.filterConfiguration) : nil
        var episodes = RejectionEpisodes()
        var accuracy = ReportedAccuracy()
        func write(_ lines: [String]) {
            guard status == .success, !lines.isEmpty else { return }
            if (try? FileDescriptor.standardOutput.writeAll(lines.joined(separator: "\n") + "\n")) == nil {
                logger.error("stdout closed; stopping")
                reader.stop()
                status = .ioError
            }
        }
        for await event in reader.events {
            guard case let .location(location) = event else {
                ReaderEventLog.log(event, to: logger)
                continue
            }
            accuracy.add(location)
            guard var filter = chain else {
                write([LocationJSON.line(for: location)])
                continue
            }
            let clock = SystemClockStatus.read()
            let decision = filter.process(location, clock: clock)
            if let (level, message) = RejectionEpisodes.recalled(decision.recalled) { logger.log(level, message) }
            if let (level, message) = episodes.record(decision.rejection, location, configuration: filter.configuration, clock: clock) {
                logger.log(level, message)
            }
            write(decision.kept.map(Self.line))
            chain = filter
        }
        signals.cancel()
        logger.info("watch finished", ["counts": reader.statistics.summary])
        // Which tracker mode suits this receiver, once enough fixes were seen to say.
        if accuracy.total >= Self.fixesForAdvice, let advice = accuracy.modeAdvice { logger.info(advice) }
        if var filter = chain {
            write(filter.finish().map(Self.line))
            StandardError.write("filter: \(filter.counters.summary)\n")
        }
        return status
    }

    /// Fixes seen before `watch` says which tracker mode suits the receiver.
    static let fixesForAdvice = 10

    /// A kept location's JSON line, with the trigger that kept it.
    static func line(_ kept: KeptLocation) -> String {
        LocationJSON.line(for: kept.location, extra: [("kept", kept.trigger.rawValue)])
    }
}
