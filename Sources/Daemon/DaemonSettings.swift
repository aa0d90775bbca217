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
        // 1. Flags, kept in order to be applied last; `--config` chooses the file.
        let given = flagValues(flags)
        var configPath = given.configPath
        if configPath == nil, let path = environment["GPSTRACKD_CONFIG"], !path.isEmpty {
            configPath = (path, .environment(variable: "GPSTRACKD_CONFIG"))
        }
        // 2. Built-in defaults.
        var layers = SettingsLayers(configuration: DaemonConfiguration(
            deviceID: hostname, stateDirectory: Spool.Configuration.defaultDirectory(environment: environment)))
        layers.problems = given.problems
        // 3. The file.
        let path = configPath?.0 ?? defaultConfigPath
        var usedPath: String?
        if let text = try readFile(path, required: configPath != nil, source: configPath?.1) {
            usedPath = path
            layers.applyFile(text, path: path)
        }
        // 4. The environment.
        layers.applyEnvironment(environment)
        // 5. Flags.
        for (name, value) in given.values { layers.apply(name, value, .flag(name: "--\(name)")) }
        if let failure = layers.failure { throw failure }
        try validate(&layers.configuration, sources: layers.sources, environment: environment)
        return Loaded(configuration: layers.configuration, sources: layers.sources, values: layers.values, configPath: usedPath, warnings: layers.warnings)
    }

    /// The `--key value` (or `--key=value`) flags in order, the `--config` among them, and the
    /// mistakes: a stray argument, a flag without its value, an unknown key.
    private static func flagValues(_ flags: [String])
        -> (values: [(name: String, value: String)], configPath: (String, ConfigurationSource)?, problems: [ConfigurationError]) {
        var values: [(name: String, value: String)] = []
        var configPath: (String, ConfigurationSource)?
        var problems: [ConfigurationError] = []
        var rest = flags[...]
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
            values.append((name, value))
        }
        return (values, configPath, problems)
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
