import Glibc
import Spool
import SystemIO
import TrackingCore

/// `gpstrackd status [--json]`: what the daemon with this configuration is doing, from the status
/// file it keeps in its state directory; from the spool alone when it is not running.
public struct StatusCommand: Sendable {
    public var flags: [String]
    public var environment: [String: String]

    public func run() async -> ExitCode {
        var json = false
        let settings = flags.filter { flag in
            if flag == "--json" { json = true; return false }
            return true
        }
        let loaded: DaemonSettings.Loaded
        do {
            loaded = try DaemonSettings.load(flags: settings, environment: environment, hostname: HistoryCommand.hostname())
        } catch {
            StandardError.write("gpstrackd: configuration error: \(error)\n")
            return .config
        }
        let directory = loaded.configuration.stateDirectory
        if let status = DaemonStatus.load(from: directory), kill(status.pid, 0) == 0 {
            try? FileDescriptor.standardOutput.writeAll((json ? status.json() : "gpstrackd is running\n" + status.summary) + "\n")
            return .success
        }
        // Not running: the spool still says what is waiting.
        do {
            let spool = try await Spool.open(.init(directory: directory))
            let stats = try await spool.statistics()
            let status = DaemonStatus(
                pid: 0, updated: SystemClock.now().iso8601,
                gpsd: .init(connected: false, endpoint: loaded.configuration.gpsd.description), lastFix: nil,
                filter: .init(in: 0, kept: 0, rejected: [:]),
                spool: .init(queued: stats.queued, oldest: stats.oldest?.iso8601, deadLetters: stats.deadLetters, evictions: stats.evictions,
                             heldInMemory: stats.heldInMemory, storeFailures: stats.storeFailures),
                upload: .init(sink: loaded.configuration.sink.rawValue, uploaded: 0, lastSuccess: nil, lastError: nil),
                tracker: .init(filtering: TrackerMemory.load(from: directory).filtering, source: "last known", withheld: 0),
                credentials: .init(source: nil, expires: nil))
            let text = json ? status.json() : "gpstrackd is not running (state directory \(directory))\n"
                + "spool: \(stats.queued) queued" + (stats.oldest.map { ", oldest \($0)" } ?? "") + ", \(stats.deadLetters) dead letters"
            try? FileDescriptor.standardOutput.writeAll(text + "\n")
            return .unavailable
        } catch {
            StandardError.write("gpstrackd: \(error)\n")
            return .unavailable
        }
    }
}
