import AWSLocation
import Glibc
import GPSDReader
import Spool
import SystemIO
import TrackingCore

/// The key table: every configuration key declared once — its value, what it does, its default,
/// whether it is a secret and whether a reload applies it live — read by the parser, `--help`,
/// check-config and reload.
extension DaemonSettings {
    struct Key: Sendable {
        let name: String
        let secret: Bool
        /// Whether a reload (SIGHUP) applies a new value while running; otherwise it needs a restart.
        var live = false
        let apply: @Sendable (String, inout DaemonConfiguration) -> String?
        let show: @Sendable (DaemonConfiguration) -> String?

        /// What the value is, for --help and the manual ("N 1-10", "2d|3d").
        var value = "TEXT"
        /// One line on what the key does.
        var help = ""
        /// The default as the manual says it, when `show` of the defaults cannot (nil: derived).
        var defaultText: String?

        init(name: String, secret: Bool, live: Bool = false, value: String = "TEXT", help: String = "",
             apply: @escaping @Sendable (String, inout DaemonConfiguration) -> String?,
             show: @escaping @Sendable (DaemonConfiguration) -> String?) {
            self.name = name
            self.secret = secret
            self.live = live
            self.value = value
            self.help = help
            self.apply = apply
            self.show = show
        }

        /// The same key, applied live on a reload.
        var reloadable: Key {
            var key = self
            key.live = true
            return key
        }

        /// The same key with its documentation.
        func described(_ value: String?, _ help: String, default defaultText: String? = nil) -> Key {
            var key = self
            if let value { key.value = value }
            key.help = help
            key.defaultText = defaultText
            return key
        }

        /// The default, as text.
        var defaultValue: String { defaultText ?? show(DaemonSettings.defaults) ?? "none" }
    }

    /// The built-in defaults, as the manual states them (the device ID and the state directory
    /// depend on the machine).
    static let defaults = DaemonConfiguration(deviceID: "the host name", stateDirectory: "$STATE_DIRECTORY, else /var/lib/gpstrackd")

    static func text(_ name: String, secret: Bool = false, _ set: @escaping @Sendable (inout DaemonConfiguration, String) -> Void,
                     _ show: @escaping @Sendable (DaemonConfiguration) -> String?) -> Key {
        Key(name: name, secret: secret, apply: { value, c in
            guard !value.isEmpty else { return "must not be empty" }
            set(&c, value)
            return nil
        }, show: show)
    }

    static func number(_ name: String, _ range: ClosedRange<Double>, integer: Bool = false,
                       _ set: @escaping @Sendable (inout DaemonConfiguration, Double) -> Void,
                       _ show: @escaping @Sendable (DaemonConfiguration) -> String?) -> Key {
        let rule = NumberRule(range: range, integer: integer)
        return Key(name: name, secret: false, value: rule.value, apply: { value, c in
            guard let number = rule.parse(value) else { return rule.problem }
            set(&c, number)
            return nil
        }, show: show)
    }

    static func format(_ value: Double) -> String {
        value == value.rounded() && abs(value) < 1e15 ? String(Int64(value)) : String(value)
    }

    static let keys: [Key] = [
        Key(name: "gpsd", secret: false, apply: { value, c in
            guard let endpoint = GPSDEndpoint(value) else { return "must be HOST:PORT, e.g. 127.0.0.1:2947" }
            c.gpsd = endpoint
            return nil
        }, show: { $0.gpsd.description })
            .described("HOST:PORT", "the gpsd to read from"),
        number("no-data-timeout", 1...3600, { $0.noDataTimeout = $1 }, { format($0.noDataTimeout) })
            .described(nil, "seconds without a fix report from gpsd before reconnecting"),
        number("burst-window", 0...1, { $0.burstWindow = $1 }, { format($0.burstWindow) })
            .described(nil, "seconds the reader rests after the first message of a burst before reading the rest together"),
        Key(name: "accuracy-source", secret: false, apply: { value, c in
            guard let source = AccuracySource(rawValue: value) else { return "must be " + AccuracySource.choices }
            c.accuracySource = source
            return nil
        }, show: { $0.accuracySource.rawValue })
            .described("gst|gpsd", "the horizontal accuracy reported: the receiver's own NMEA GST statistics (2DRMS) where it sends them, or always gpsd's eph; the filter judges by gpsd's either way"),
        text("device-id", { $0.deviceID = $1 }, { $0.deviceID })
            .described("ID", "the device ID positions are stored under"),
        text("state-dir", { $0.stateDirectory = $1 }, { $0.stateDirectory })
            .described("DIR", "the spool, status.json and what the daemon remembers"),
        Key(name: "sink", secret: false, apply: { value, c in
            guard let sink = DaemonConfiguration.Sink(rawValue: value) else { return "must be aws-location or file" }
            c.sink = sink
            return nil
        }, show: { $0.sink.rawValue })
            .described("aws-location|file", "where positions go (aws-location when a tracker is set)"),
        text("region", { $0.region = $1 }, { $0.region })
            .described("REGION", "the tracker's AWS region (else AWS_REGION, or the identity pool's)", default: "none"),
        text("tracker", { $0.tracker = $1 }, { $0.tracker })
            .described("NAME", "the Amazon Location tracker", default: "none"),
        Key(name: "endpoint", secret: false, apply: { value, c in
            do throws(ServiceEndpoint.Invalid) {
                c.endpoint = try ServiceEndpoint(value)
            } catch {
                return error.reason
            }
            return nil
        }, show: { $0.endpoint?.description })
            .described("URL", "another service endpoint (https; http only to a loopback address)", default: "none"),
        text("identity-pool-id", { $0.identityPoolID = $1 }, { $0.identityPoolID })
            .described("ID", "a Cognito identity pool for guest credentials", default: "none"),
        text("profile", { $0.profile = $1 }, { $0.profile })
            .described("NAME", "a profile of ~/.aws/credentials", default: "none"),
        text("access-key-id", { $0.accessKeyID = $1 }, { $0.accessKeyID })
            .described("ID", "an access key (with secret-access-key)", default: "none"),
        text("secret-access-key", secret: true, { $0.secretAccessKey = $1 }, { $0.secretAccessKey })
            .described("SECRET", "the access key's secret (never shown)", default: "none"),
        text("file-path", { $0.filePath = $1 }, { $0.filePath })
            .described("PATH", "the file sink's JSON lines", default: "<state-dir>/positions.jsonl"),
        number("file-max-bytes", 4096...1e12, integer: true, { $0.fileMaxBytes = Int64($1) }, { String($0.fileMaxBytes) })
            .described(nil, "bytes before the file sink rotates to <file>.1"),
        number("batch-size", 1...10, integer: true, { $0.batchSize = Int($1) }, { String($0.batchSize) }).reloadable
            .described(nil, "positions per request (the API's maximum is 10)"),
        number("upload-interval", 0.1...3600, { $0.uploadInterval = $1 }, { format($0.uploadInterval) }).reloadable
            .described(nil, "seconds a partial batch waits for company (file sink: between writes)"),
        number("max-in-flight", 1...64, integer: true, { $0.maxInFlight = Int($1) }, { String($0.maxInFlight) }).reloadable
            .described(nil, "requests at once"),
        number("max-request-rate", 0.1...50, { $0.maxRequestRate = $1 }, { format($0.maxRequestRate) }).reloadable
            .described(nil, "requests per second at most (the account's quota is shared by the fleet)"),
        number("quota-share", 0...50, { $0.quotaShare = $1 }, { format($0.quotaShare) }).reloadable
            .described(nil, "this box's part of the account's BatchUpdateDevicePosition quota, requests per second "
                + "(the quota over the boxes that may drain at once): sent at 90 % of it, evenly, without lowering "
                + "the rate on throttling; 0: none, the rate adapts"),
        number("data-budget", 0...1e12, integer: true, { $0.dataBudget = Int($1) }, { String($0.dataBudget) }).reloadable
            .described(nil, "bytes a UTC day on the wire to the tracker, spent evenly by batching more; 0: none"),
        number("connection-keepalive", 0...3600, { $0.connectionKeepalive = $1 }, { format($0.connectionKeepalive) })
            .described(nil, "seconds of silence before an idle connection to the tracker gets a keepalive "
                + "(under the path's idle timeout; for 5 minutes after the last request); 0: none"),
        Key(name: "position-properties", secret: false, apply: { value, c in
            let names = value.split(separator: ",").map { String($0).trimmingSpaces }.filter { !$0.isEmpty }
            var properties: [PositionProperty] = []
            for name in names {
                guard let property = PositionProperty(rawValue: String(name)) else {
                    return "'\(name)' is not one of \(PositionProperty.allCases.map(\.rawValue).joined(separator: ", "))"
                }
                properties.append(property)
            }
            guard properties.count <= DevicePositionUpdate.maxProperties else {
                return "at most \(DevicePositionUpdate.maxProperties) (the tracker's limit)"
            }
            c.positionProperties = properties
            return nil
        }, show: { $0.positionProperties.map(\.rawValue).joined(separator: ",") }).reloadable
            .described("LIST", "up to 4 of \(PositionProperty.allCases.map(\.rawValue).joined(separator: ", ")), comma-separated; "
                + "course only at 1 m/s or more, under which it is the receiver's noise"),
        number("spool-max-rows", 1000...1e9, integer: true, { $0.spoolMaxRows = Int($1) }, { String($0.spoolMaxRows) })
            .described(nil, "positions the spool holds at most (the oldest are thinned beyond)"),
        number("spool-max-bytes", 1_048_576...1e13, integer: true, { $0.spoolMaxBytes = Int64($1) }, { $0.spoolMaxBytes.map(String.init) })
            .described(nil, "bytes the spool may use at most", default: "off"),
        Key(name: "log-level", secret: false, apply: { value, c in
            guard let level = LogLevel(value) else { return "must be one of \(LogLevel.allCases.map(\.description).joined(separator: ", "))" }
            c.logLevel = level
            return nil
        }, show: { $0.logLevel.description }).reloadable
            .described("LEVEL", "trace, debug, info, notice, warning, error"),
        Key(name: "log-format", secret: false, apply: { value, c in
            guard let format = LogFormat(rawValue: value) else { return "must be journal, text or json" }
            c.logFormat = format
            return nil
        }, show: { $0.logFormat?.rawValue })
            .described("FORMAT", "journal, text or json", default: "journal under systemd, else text"),
        text("metrics-file", { $0.metricsFile = $1 }, { $0.metricsFile })
            .described("PATH", "Prometheus text for node_exporter's textfile collector", default: "none"),
        Key(name: "tracker-filtering", secret: false, apply: { value, c in
            if value == "auto" {
                c.trackerFiltering = nil
                return nil
            }
            guard let filtering = TrackerFiltering(rawValue: value) else {
                return "must be auto, " + TrackerFiltering.allCases.map(\.rawValue).joined(separator: ", ")
            }
            c.trackerFiltering = filtering
            return nil
        }, show: { $0.trackerFiltering?.rawValue ?? "auto" }).reloadable
            .described("MODE", "the tracker's PositionFiltering: auto (ask it), TimeBased, DistanceBased, AccuracyBased, none"),
    ] + FilterSettings.keys.map { filterKey in
        Key(name: filterKey.name, secret: false, live: true, value: filterKey.value, help: filterKey.summary,
            apply: { value, c in filterKey.apply(value, &c.filter) }, show: { filterKey.show($0.filter) })
    }
}
