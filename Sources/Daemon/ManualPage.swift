import TrackingCore

/// The manual pages, `gpstrackd(8)` and `gpstrackd.conf(5)`, in roff, written from the same key
/// table as `--help` and check-config so that they cannot drift apart (`gpstrackd man-page 8|5`;
/// the package build installs what it prints).
enum ManualPage {
    /// The page for `section` ("8" the program, "5" the configuration file), or nil.
    static func page(_ section: String) -> String? {
        switch section {
        case "8", "gpstrackd", "gpstrackd.8": return program
        case "5", "gpstrackd.conf", "gpstrackd.conf.5": return configuration
        default: return nil
        }
    }

    static var program: String {
        let exits = ExitCode.allCases.map { code in ".TP\n.B \(code.rawValue)\n\(escape(code.meaning))" }.joined(separator: "\n")
        return """
        .TH GPSTRACKD 8 "" "gpstrackd \(Version.string)" "System Administration"
        .SH NAME
        gpstrackd \\- GPS-to-cloud tracking daemon
        .SH SYNOPSIS
        .B gpstrackd
        .RB [ run ]
        .RB [ \\-\\-config
        .IR PATH ]
        .RB [ \\-\\- \\fIKEY\\fR
        .IR VALUE " ...]"
        .br
        .B gpstrackd watch
        .RB [ \\-\\-gpsd
        .IR HOST:PORT ]
        .RB [ \\-\\-filter ]
        .br
        .B gpstrackd history \\-\\-tracker
        .I NAME
        .RB [ \\-\\-since
        .IR 24h|TIME ]
        .RB [ \\-\\-format
        .IR json|gpx ]
        .br
        .B gpstrackd status
        .RB [ \\-\\-json ]
        .br
        .B gpstrackd check\\-config
        .RB [ \\-\\-config
        .IR PATH ]
        .br
        .B gpstrackd man\\-page
        .I 8|5
        .br
        .B gpstrackd
        .BR \\-\\-help " | " \\-\\-version
        .SH DESCRIPTION
        gpstrackd reads fixes from gpsd through libgps, keeps those that make a faithful track with few
        points (a quality gate, then motion triggers: corners, stops, departures, heartbeats), stores
        them in a durable SQLite queue under the state directory, and uploads them in batches to an
        Amazon Location Service tracker with SigV4-signed requests, or writes them as JSON lines to a
        file when no tracker is configured. It runs under systemd (Type=notify, watchdog) and logs for
        the journal.
        .SH COMMANDS
        .TP
        .B run
        The daemon (also with no command). Settings come from the configuration file
        (\\fBgpstrackd.conf\\fR(5)), GPSTRACKD_\\fIKEY\\fR variables and \\-\\-\\fIkey value\\fR flags; a
        later source wins.
        .TP
        .B watch
        Connect to gpsd and print each position as one JSON object per line; with \\-\\-filter only the
        fixes the filter keeps. The operator's "is my GPS working?" tool.
        .TP
        .B history
        Fetch what the tracker stored for a device (default: this host's name), all pages, as JSON lines
        or GPX.
        .TP
        .B status
        What the daemon with this configuration is doing: read from its status.json, or from the spool
        when it is not running (exit 69 then).
        .TP
        .B check\\-config
        Validate the configuration and print the effective settings with their sources, secrets
        redacted; every error is reported, an unknown key with the nearest known one (exit 78 when
        invalid).
        .TP
        .B man\\-page
        Print this page (8) or \\fBgpstrackd.conf\\fR(5) in roff, for packaging.
        .SH SIGNALS
        .TP
        .BR SIGTERM ", " SIGINT
        Stop: reading ends, what the filter holds is kept and the spool flushed, requests in flight get
        10 s, status is written last; all within 20 s. A second signal cancels what is left.
        .TP
        .B SIGHUP
        Reload the configuration: keys marked live apply at once, the log names those that need a
        restart.
        .TP
        .B SIGUSR1
        Log one status line (fixes, kept, queued, uploaded, the last error).
        .SH EXIT STATUS
        \(exits)
        .SH FILES
        .TP
        .I /etc/gpstrackd/gpstrackd.conf
        The configuration (\\fBgpstrackd.conf\\fR(5)).
        .TP
        .I /etc/gpstrackd/aws-credentials
        AWS keys in the shared-credentials format, passed by systemd as a credential
        ($CREDENTIALS_DIRECTORY/aws-credentials).
        .TP
        .I /var/lib/gpstrackd/spool.db
        The durable queue of kept positions (SQLite, WAL), with its dead letters.
        .TP
        .I /var/lib/gpstrackd/status.json
        What the daemon is doing, rewritten every few seconds (read by \\fBgpstrackd status\\fR).
        .TP
        .I /var/lib/gpstrackd/tracker.json
        The tracker's PositionFiltering as last learned, and the last position it stored.
        .TP
        .I /var/lib/gpstrackd/positions.jsonl
        The file sink's output when no tracker is configured.
        .SH ENVIRONMENT
        .TP
        .B GPSTRACKD_\\fIKEY\\fP
        Any key of \\fBgpstrackd.conf\\fR(5), upper case with underscores.
        .TP
        .BR AWS_ACCESS_KEY_ID ", " AWS_SECRET_ACCESS_KEY ", " AWS_SESSION_TOKEN ", " AWS_PROFILE
        Credentials, before $CREDENTIALS_DIRECTORY/aws-credentials and ~/.aws/credentials.
        .TP
        .BR STATE_DIRECTORY ", " CREDENTIALS_DIRECTORY
        Set by systemd (StateDirectory=, LoadCredential=).
        .TP
        .BR HTTPS_PROXY ", " NO_PROXY
        A CONNECT proxy for the tracker; TLS stays end to end.
        .SH EXAMPLES
        .nf
        gpstrackd watch \\-\\-filter
        gpstrackd check-config \\-\\-config /etc/gpstrackd/gpstrackd.conf
        gpstrackd history \\-\\-tracker fleet \\-\\-since 2h \\-\\-format gpx > today.gpx
        systemctl enable \\-\\-now gpstrackd
        journalctl \\-u gpstrackd \\-f
        .fi
        .SH SEE ALSO
        .BR gpstrackd.conf (5),
        .BR gpsd (8),
        .BR systemd.service (5)

        """
    }

    static var configuration: String {
        let keys = DaemonSettings.keys.map { key in
            let reload = key.live ? "applied live on SIGHUP" : "needs a restart"
            let secret = key.secret ? "; a secret, never shown" : ""
            return ".TP\n.BI \"\(escape(key.name)) = \" \"\(escape(key.value))\"\n\(escape(key.help)). Default: \(escape(key.defaultValue)); \(reload)\(secret)."
        }.joined(separator: "\n")
        return """
        .TH GPSTRACKD.CONF 5 "" "gpstrackd \(Version.string)" "File Formats"
        .SH NAME
        gpstrackd.conf \\- configuration of gpstrackd
        .SH DESCRIPTION
        One setting a line, \\fIkey\\fR = \\fIvalue\\fR; lines starting with # are comments. The same keys
        are GPSTRACKD_\\fIKEY\\fR environment variables and \\-\\-\\fIkey value\\fR flags of
        \\fBgpstrackd\\fR(8); a later source wins (file, then environment, then flags).
        \\fBgpstrackd check-config\\fR reports every error at once and prints the effective values with
        their sources. On SIGHUP the keys marked live apply at once; the log names every other key that
        changed as needing a restart.
        .SH KEYS
        \(keys)
        .SH EXAMPLE
        .nf
        tracker = fleet
        region = eu-central-1
        device-id = van-17
        upload-interval = 30
        .fi
        .SH SEE ALSO
        .BR gpstrackd (8)

        """
    }

    /// Text safe in roff: backslashes and hyphens escaped, no line starting with a control character.
    static func escape(_ text: String) -> String {
        var out = ""
        for character in text {
            switch character {
            case "\\": out += "\\e"
            case "-": out += "\\-"
            default: out.append(character)
            }
        }
        if out.hasPrefix(".") || out.hasPrefix("'") { out = "\\&" + out }
        return out
    }
}
