import GPSDReader
import TrackingCore

/// What the command line asks gpstrackd to do.
public enum Command: Sendable, Equatable {
    case help
    case version
    case watch(WatchOptions)
    case history(HistoryOptions)
    /// `check-config [--config PATH] [--key value ...]`: validate and print the effective configuration.
    case checkConfig(flags: [String])
    /// `status [--json]`: the running daemon's state, or the spool's when it is not running.
    case status(flags: [String])
    /// `run` (also with no command): the daemon.
    case run(flags: [String])
    /// `man-page 8|5`: a manual page in roff, for packaging.
    case manualPage(String)

    /// Every command by name, as `--help` and the manual list them.
    static let names = ["run", "watch", "history", "status", "check-config", "man-page"]

    /// Parses the arguments after the program name.
    public static func parse(_ arguments: [String]) throws(CommandLineError) -> Command {
        var rest = arguments[...]
        // `swift run gpstrackd -- --key value` passes the separator on.
        if rest.first == "--" { rest = rest.dropFirst() }
        if rest.contains("--help") || rest.contains("-h") { return .help }
        if rest.contains("--version") { return .version }
        guard let name = rest.first, !name.hasPrefix("--") else { return .run(flags: Array(rest)) }
        rest = rest.dropFirst()
        switch name {
        case "run":
            return .run(flags: Array(rest))
        case "watch":
            return .watch(try WatchOptions.parse(rest))
        case "history":
            return .history(try HistoryOptions.parse(rest))
        case "status":
            return .status(flags: Array(rest))
        case "check-config":
            return .checkConfig(flags: Array(rest))
        case "man-page":
            guard let section = rest.first, ManualPage.page(section) != nil, rest.count == 1 else {
                throw CommandLineError("man-page takes 8 (gpstrackd) or 5 (gpstrackd.conf)")
            }
            return .manualPage(section)
        case "help":
            return .help
        default:
            throw CommandLineError("unknown command '\(name)'")
        }
    }

    public static let usage = """
        gpstrackd \(versionString) — GPS-to-cloud tracking daemon

        Usage:
          gpstrackd [run] [--config PATH] [--KEY VALUE ...]
              The daemon: read gpsd, filter, store durably, upload to the tracker (or, without a
              tracker, write JSON lines under the state directory).
          gpstrackd watch [--gpsd HOST:PORT] [options]
              Connect to gpsd and print each position as one JSON object per line on stdout
              (diagnostics on stderr). The operator's "is my GPS working?" tool.
          gpstrackd history --tracker NAME [--device-id ID] [--since 24h|TIME] [--until TIME] [--format json|gpx]
                            [--region REGION] [--endpoint URL] [--profile NAME] [--identity-pool-id ID]
              Fetch what the tracker stored for a device (default: this host's name), all pages.
              Credentials: AWS_ACCESS_KEY_ID/AWS_SECRET_ACCESS_KEY, $CREDENTIALS_DIRECTORY/aws-credentials,
              ~/.aws/credentials (profile), or a Cognito identity pool.
          gpstrackd status [--json] [--config PATH] [--state-dir DIR]
              What the daemon with this configuration is doing (exit 69 when it is not running).
          gpstrackd check-config [--config PATH] [--KEY VALUE ...]
              Validate the configuration (file, GPSTRACKD_* variables, flags; later wins) and print
              the effective settings with their sources, secrets redacted. Exit 78 when invalid.
          gpstrackd man-page 8|5
              Print the manual page gpstrackd(8) or gpstrackd.conf(5) in roff, for packaging.
          gpstrackd --help | --version

        Settings of the daemon (the file's `key = value`, GPSTRACKD_KEY variables, --key value flags;
        a later source wins). SIGHUP applies those marked live and names the others as needing a
        restart; the filter settings below are all live:
        \(DaemonSettings.helpLines)

        Options for watch:
          --gpsd HOST:PORT          gpsd to read from (default 127.0.0.1:2947)
          --no-data-timeout SECS    reconnect when gpsd sends no TPV for this long (default 10)
          --accuracy-source SOURCE  gst or gpsd: horizontalAccuracy from the receiver's NMEA GST
                                    where it sends it, else gpsd's (default gst); or always
                                    gpsd's. With GST, gpsd's figure is printed as filterAccuracy
          --log-level LEVEL         trace, debug, info, notice, warning, error (default info)
          --log-format FORMAT       journal, text or json (default: journal under systemd, else text)
          --filter                  print only the fixes the filter chain keeps, each with
                                    "kept":"<trigger>"; a summary goes to stderr on exit

        Filter settings (with --filter; the daemon takes the same keys):
        \(FilterSettings.helpLines)

        Output: one line per fix time, keys absent when unknown:
          time (receiver fix time, UTC), mode ("2d"/"3d"), latitude, longitude, altitudeMSL,
          altitudeHAE, course, speed, climb, heading, horizontalAccuracy, verticalAccuracy,
          speedAccuracy, courseAccuracy, device.

        Exit status: 0 on success or SIGINT/SIGTERM, 64 for a usage error, 78 for a configuration
        problem (no credentials, no region), 69 when the tracker cannot be reached or refuses (or
        OpenSSL 3, which it needs, is missing), 73 when the state directory or its spool cannot be
        used (not writable, from a newer gpstrackd), 75 when another gpstrackd runs on the same
        state directory.
        """

    static var versionString: String { Version.string }
}
