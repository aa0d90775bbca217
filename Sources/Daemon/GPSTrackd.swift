import Glibc
import SystemIO
import TrackingCore

/// The program: parses the command line, runs the command, returns the exit status.
public enum GPSTrackd {
    public static func main(arguments: [String], environment: [String: String]) async -> ExitCode {
        // The one place the process's disposition is set: a reader that went away (`watch | head`,
        // gpsd restarting) is an error from write(2), EPIPE, not a signal that ends the process.
        // The libraries shield their own C calls (`BrokenPipe.withoutSignal`) for other hosts.
        signal(SIGPIPE, SIG_IGN)
        let command: Command
        do {
            command = try Command.parse(Array(arguments.dropFirst()))
        } catch {
            StandardError.write("gpstrackd: \(error)\n")
            return .usage
        }
        switch command {
        case .help:
            try? FileDescriptor.standardOutput.writeAll(Command.usage + "\n")
            return .success
        case .version:
            try? FileDescriptor.standardOutput.writeAll("gpstrackd \(Version.string)\n")
            return .success
        case let .manualPage(section):
            try? FileDescriptor.standardOutput.writeAll(ManualPage.page(section) ?? "")
            return .success
        case let .watch(options):
            let logger = Logger(
                level: options.logLevel,
                format: options.logFormat ?? Logger.defaultFormat(environment: environment))
            return await WatchCommand(options: options, logger: logger).run()
        case let .run(flags):
            do {
                let loaded = try DaemonSettings.load(flags: flags, environment: environment, hostname: HistoryCommand.hostname())
                return await DaemonCommand(loaded: loaded, environment: environment, flags: flags).run()
            } catch {
                // Every mistake, one per line.
                for mistake in error.all { StandardError.write("gpstrackd: configuration error: \(mistake)\n") }
                return .config
            }
        case let .status(flags):
            return await StatusCommand(flags: flags, environment: environment).run()
        case let .checkConfig(flags):
            do {
                let loaded = try DaemonSettings.load(flags: flags, environment: environment, hostname: HistoryCommand.hostname())
                for warning in loaded.warnings { StandardError.write("gpstrackd: warning: \(warning)\n") }
                try? FileDescriptor.standardOutput.writeAll(DaemonSettings.render(loaded) + "\n")
                return .success
            } catch {
                // Every mistake, one per line.
                for mistake in error.all { StandardError.write("gpstrackd: configuration error: \(mistake)\n") }
                return .config
            }
        case let .history(options):
            let logger = Logger(level: .info, format: Logger.defaultFormat(environment: environment))
            return await HistoryCommand(options: options, environment: environment, logger: logger).run()
        }
    }
}
