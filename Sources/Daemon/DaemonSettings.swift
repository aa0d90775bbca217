import AWSLocation
import Glibc
import GPSDReader
import Spool
import SystemIO
import TrackingCore

/// The daemon's configuration keys and how they are read: built-in defaults, then the file
/// (`--config`, default /etc/gpstrackd/gpstrackd.conf, lines `key = value`, `#` comments), then
/// `GPSTRACKD_KEY` environment variables (upper case, dashes as underscores), then `--key value`
/// flags. A later source wins. Every mistake names the key, its source and what is allowed.
public enum DaemonSettings {
    public static let defaultConfigPath = "/etc/gpstrackd/gpstrackd.conf"

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

    /// The result of loading: the configuration and where each set key came from.
    public struct Loaded: Sendable {
        public var configuration: DaemonConfiguration
        public var sources: [String: ConfigurationSource]
        /// The text each set key was given, for keys whose value has no single rendering.
        public var values: [String: String]
        public var configPath: String?
        /// Things that are allowed but probably not meant, such as a key set twice: which one wins.
        public var warnings: [String] = []
    }

    /// A configuration file larger than this is not read (it is not one: `/dev/zero`, a log).
    static let maxFileBytes = 1 << 20

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
        Key(name: name, secret: false, value: (integer ? "N " : "X ") + "\(format(range.lowerBound))-\(format(range.upperBound))", apply: { value, c in
            guard let number = Double(value), number.isFinite, range.contains(number), !integer || number == number.rounded() else {
                let bounds = "\(format(range.lowerBound)) to \(format(range.upperBound))"
                return integer ? "must be a whole number from \(bounds)" : "must be a number from \(bounds)"
            }
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
            .described("LIST", "up to 4 of \(PositionProperty.allCases.map(\.rawValue).joined(separator: ", ")), comma-separated"),
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

    /// `--help` lines for every key that is not a filter key (those follow under their own
    /// heading): the value, what it does, the default, and whether SIGHUP applies it.
    static var helpLines: String {
        keys.filter { !FilterSettings.isKey($0.name) }.map { key in
            "  --\((key.name + " " + key.value).padding(toLength: 34))\(key.help) (default \(key.defaultValue)\(key.live ? "; live" : ""))"
        }.joined(separator: "\n")
    }

    public static func isSecret(_ key: String) -> Bool { keys.first { $0.name == key }?.secret ?? false }

    /// Whether a message may repeat the value given for `key`: only for a known key that is not
    /// a secret. A mistyped key (`aws_secret_access_key`, `GPSTRACKD_SECRET_KEY`) is unknown, and
    /// its value is as likely to be a secret as not.
    static func mayShowValue(of key: String) -> Bool {
        keys.first { $0.name == key }.map { !$0.secret } ?? false
    }

    /// "unknown setting", with the nearest known key when one is close (a typo).
    static func unknown(_ name: String, prefix: String = "") -> String {
        "unknown setting" + (nearestKey(to: name).map { "; did you mean \(prefix)\($0)?" } ?? "; see gpstrackd --help")
    }

    /// The known key nearest `name` by edit distance, when it is within a typo (a third of its
    /// length, at most 3 edits).
    static func nearestKey(to name: String) -> String? {
        let limit = min(3, max(1, name.count / 3))
        let scored = keys.map { ($0.name, editDistance(name.lowercased(), $0.name)) }
        guard let best = scored.min(by: { $0.1 < $1.1 }), best.1 <= limit else { return nil }
        return best.0
    }

    /// Levenshtein distance.
    static func editDistance(_ a: String, _ b: String) -> Int {
        let a = Array(a), b = Array(b)
        guard !a.isEmpty else { return b.count }
        var row = Array(0...b.count)
        for i in 1...a.count {
            var previous = row[0]
            row[0] = i
            for j in stride(from: 1, through: b.count, by: 1) {
                let above = row[j]
                row[j] = min(row[j] + 1, row[j - 1] + 1, previous + (a[i - 1] == b[j - 1] ? 0 : 1))
                previous = above
            }
        }
        return row[b.count]
    }

    static func environmentName(_ key: String) -> String {
        "GPSTRACKD_" + key.uppercased().replacingDashes
    }

    /// Loads the configuration from `flags` (the arguments after the command), `environment`
    /// and the configuration file.
    public static func load(flags: [String], environment: [String: String], hostname: String) throws(ConfigurationError) -> Loaded {
        // 1. Flags, kept in order; `--config` chooses the file.
        var flagValues: [(name: String, value: String)] = []
        var rest = flags[...]
        var configPath: (String, ConfigurationSource)?
        // Every mistake is collected, so that check-config names them all at once.
        var problems: [ConfigurationError] = []
        while let argument = rest.popFirst() {
            guard argument.hasPrefix("--") else {
                // Shown only when short: a stray argument may be a value meant for a flag, a secret.
                let shown = argument.count <= 16 ? argument : String(argument.prefix(4)) + "…"
                problems.append(ConfigurationError(key: shown, source: .flag(name: shown), value: nil, problem: "unexpected argument; settings are --key value"))
                continue
            }
            var name = String(argument.dropFirst(2))
            var value: String?
            if let equals = name.firstIndex(of: "=") {
                value = String(name[name.index(after: equals)...])
                name = String(name[..<equals])
            }
            if value == nil { value = rest.popFirst() }
            guard let value else {
                problems.append(ConfigurationError(key: name, source: .flag(name: "--\(name)"), value: nil, problem: "needs a value"))
                continue
            }
            if name == "config" {
                configPath = (value, .flag(name: "--config"))
                continue
            }
            guard keys.contains(where: { $0.name == name }) else {
                problems.append(ConfigurationError(key: name, source: .flag(name: "--\(name)"), value: value, problem: unknown(name, prefix: "--")))
                continue
            }
            flagValues.append((name, value))
        }
        if configPath == nil, let path = environment["GPSTRACKD_CONFIG"], !path.isEmpty {
            configPath = (path, .environment(variable: "GPSTRACKD_CONFIG"))
        }
        // 2. Built-in defaults.
        var configuration = DaemonConfiguration(
            deviceID: hostname, stateDirectory: Spool.Configuration.defaultDirectory(environment: environment))
        var sources: [String: ConfigurationSource] = [:]
        var values: [String: String] = [:]
        var warnings: [String] = []
        func apply(_ name: String, _ value: String, _ source: ConfigurationSource) {
            guard let key = keys.first(where: { $0.name == name }) else {
                problems.append(ConfigurationError(key: name, source: source, value: value, problem: unknown(name)))
                return
            }
            if let earlier = sources[name], earlier.isSameKind(as: source) {
                warnings.append("\(source): \(name) is set again (first at \(earlier)); the later one wins")
            }
            if let problem = key.apply(value, &configuration) {
                problems.append(ConfigurationError(key: name, source: source, value: value, problem: problem))
                return
            }
            sources[name] = source
            values[name] = value
        }
        // 3. The file.
        let path = configPath?.0 ?? defaultConfigPath
        var usedPath: String?
        if let text = try readFile(path, required: configPath != nil, source: configPath?.1) {
            usedPath = path
            var body = Substring(text)
            // A byte-order mark from an editor on another system is not part of the first key.
            if body.unicodeScalars.first == "\u{FEFF}" { body = Substring(body.unicodeScalars.dropFirst()) }
            // Lines end with LF, CRLF (a file written on Windows) or CR; Swift counts CRLF as one
            // character, so a split on LF alone would make such a file one line.
            let lines = body.split(omittingEmptySubsequences: false) { $0 == "\n" || $0 == "\r\n" || $0 == "\r" }
            for (index, raw) in lines.enumerated() {
                var line = String(raw)
                if let hash = line.firstIndex(of: "#") { line = String(line[..<hash]) }
                let trimmed = line.trimmingSpaces
                if trimmed.isEmpty { continue }
                let source = ConfigurationSource.file(path: path, line: index + 1)
                guard let equals = trimmed.firstIndex(of: "=") else {
                    // The line may hold a value (a secret) without its '=': name only its first word.
                    let first = trimmed.split(whereSeparator: \.isWhitespace).first.map(String.init) ?? trimmed
                    problems.append(ConfigurationError(key: first.count <= 40 ? first : String(first.prefix(12)) + "…", source: source,
                                                       value: nil, problem: "expected key = value"))
                    continue
                }
                let name = String(trimmed[..<equals]).trimmingSpaces
                var value = String(String(trimmed[trimmed.index(after: equals)...]).trimmingSpaces)
                if value.count >= 2, value.hasPrefix("\""), value.hasSuffix("\"") { value = String(value.dropFirst().dropLast()) }
                apply(String(name), value, source)
            }
        }
        // 4. The environment.
        let names = Dictionary(uniqueKeysWithValues: keys.map { (environmentName($0.name), $0.name) })
        for variable in environment.keys.sorted() where variable.hasPrefix("GPSTRACKD_") && variable != "GPSTRACKD_CONFIG" {
            guard let name = names[variable] else {
                let guess = nearestKey(to: String(variable.dropFirst("GPSTRACKD_".count)).lowercased().replacingUnderscores).map { "; did you mean \(environmentName($0))?" }
                problems.append(ConfigurationError(key: variable, source: .environment(variable: variable), value: environment[variable],
                                                   problem: "unknown setting; variables are GPSTRACKD_ and a key in upper case with underscores" + (guess ?? "")))
                continue
            }
            apply(name, environment[variable] ?? "", .environment(variable: variable))
        }
        // 5. Flags.
        for (name, value) in flagValues { apply(name, value, .flag(name: "--\(name)")) }
        if var first = problems.first {
            first.others = Array(problems.dropFirst())
            throw first
        }
        try validate(&configuration, sources: sources, environment: environment)
        return Loaded(configuration: configuration, sources: sources, values: values, configPath: usedPath, warnings: warnings)
    }

    /// Relations between keys, and the embedded default sink.
    static func validate(_ c: inout DaemonConfiguration, sources: [String: ConfigurationSource], environment: [String: String]) throws(ConfigurationError) {
        if sources["sink"] == nil, c.tracker != nil { c.sink = .awsLocation }
        if c.region == nil {
            c.region = environment["AWS_REGION"] ?? environment["AWS_DEFAULT_REGION"]
                ?? c.identityPoolID.flatMap { $0.split(separator: ":").first.map(String.init) }
        }
        if c.sink == .awsLocation {
            guard c.tracker != nil else {
                throw ConfigurationError(key: "tracker", source: sources["sink"] ?? .builtIn, value: nil,
                                         problem: "sink aws-location needs the tracker's name (tracker = NAME)")
            }
            guard c.region != nil else {
                throw ConfigurationError(key: "region", source: sources["tracker"] ?? .builtIn, value: nil,
                                         problem: "the tracker's region is needed (region = eu-west-1, or AWS_REGION)")
            }
        }
        if (c.accessKeyID == nil) != (c.secretAccessKey == nil) {
            let missing = c.accessKeyID == nil ? "access-key-id" : "secret-access-key"
            let given = c.accessKeyID == nil ? "secret-access-key" : "access-key-id"
            throw ConfigurationError(key: missing, source: sources[given] ?? .builtIn, value: nil, problem: "\(given) is set without \(missing)")
        }
        if c.sink == .awsLocation, let (variable, reason) = SocketTransport.proxyProblem(environment: environment) {
            throw ConfigurationError(key: variable, source: .environment(variable: variable), value: nil, problem: reason)
        }
        if let metrics = c.metricsFile {
            let directory = metrics.lastIndex(of: "/").map { String(metrics[..<$0]) } ?? "."
            var info = stat()
            if !directory.isEmpty, stat(directory, &info) != 0 || info.st_mode & S_IFMT != S_IFDIR {
                throw ConfigurationError(key: "metrics-file", source: sources["metrics-file"] ?? .builtIn, value: metrics,
                                         problem: "its directory \(directory) does not exist; create it, or choose a path in an existing directory")
            }
        }
        if let problem = FilterSettings.validate(c.filter) {
            let key = problem.hasPrefix("stopped-speed") ? "stopped-speed" : "min-interval"
            throw ConfigurationError(key: key, source: sources[key] ?? .builtIn, value: nil, problem: problem)
        }
    }

    /// The effective configuration, one `key = value  # source` line per key, secrets redacted.
    public static func render(_ loaded: Loaded) -> String {
        var lines: [String] = []
        if let path = loaded.configPath { lines.append("# configuration file: \(path)") }
        for key in keys {
            let value = key.show(loaded.configuration) ?? loaded.values[key.name]
            guard let value else { continue }
            let shown = key.secret ? "<redacted>" : value
            let source = loaded.sources[key.name] ?? .builtIn
            lines.append("\(key.name) = \(shown)".padding(toLength: 48) + "# \(source)")
        }
        return lines.joined(separator: "\n")
    }

    /// The configuration file's text; nil when the default file is absent. A directory, or a file
    /// larger than `maxFileBytes` (`/dev/zero`), is refused rather than read as empty or forever.
    private static func readFile(_ path: String, required: Bool, source: ConfigurationSource?) throws(ConfigurationError) -> String? {
        func failure(_ problem: String) -> ConfigurationError {
            ConfigurationError(key: "config", source: source ?? .builtIn, value: path, problem: problem)
        }
        do throws(FileError) {
            return try SmallFile.read(path, limit: maxFileBytes)
        } catch {
            switch error.reason {
            case .system(.noSuchFile) where !required:
                return nil
            case .isDirectory:
                throw failure("is a directory; give the path of the configuration file (such as \(defaultConfigPath))")
            case .tooLarge:
                throw failure("is larger than \(maxFileBytes / 1024) KiB, which no gpstrackd configuration is; is it the right file?")
            case let .system(errno):
                throw failure("cannot read the configuration file: \(errno)")
            }
        }
    }
}

extension String {
    var replacingDashes: String { String(map { $0 == "-" ? "_" : $0 }) }
    var replacingUnderscores: String { String(map { $0 == "_" ? "-" : $0 }) }

    var trimmingSpaces: String {
        guard let first = firstIndex(where: { !$0.isWhitespace }), let last = lastIndex(where: { !$0.isWhitespace }) else { return "" }
        return String(self[first...last])
    }
}
