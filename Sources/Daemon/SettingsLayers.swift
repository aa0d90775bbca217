/// The configuration as its sources are laid on it, one after another (built-in defaults, the
/// file, the environment, the flags; a later one wins): each value applied, where each key came
/// from, and every mistake, collected rather than thrown so that check-config names them all at
/// once.
struct SettingsLayers {
    var configuration: DaemonConfiguration
    var sources: [String: ConfigurationSource] = [:]
    var values: [String: String] = [:]
    var warnings: [String] = []
    var problems: [ConfigurationError] = []

    /// Sets key `name` to `value`, read from `source`.
    mutating func apply(_ name: String, _ value: String, _ source: ConfigurationSource) {
        guard let key = DaemonSettings.keys.first(where: { $0.name == name }) else {
            problems.append(ConfigurationError(key: name, source: source, value: value, problem: DaemonSettings.unknown(name)))
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

    /// The lines `key = value` of the configuration file at `path` (`#` starts a comment).
    mutating func applyFile(_ text: String, path: String) {
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

    /// The `GPSTRACKD_` variables of `environment`, but `GPSTRACKD_CONFIG` (which chooses the file).
    mutating func applyEnvironment(_ environment: [String: String]) {
        let names = Dictionary(uniqueKeysWithValues: DaemonSettings.keys.map { (DaemonSettings.environmentName($0.name), $0.name) })
        for variable in environment.keys.sorted() where variable.hasPrefix("GPSTRACKD_") && variable != "GPSTRACKD_CONFIG" {
            guard let name = names[variable] else {
                let guess = DaemonSettings.nearestKey(to: String(variable.dropFirst("GPSTRACKD_".count)).lowercased().replacingUnderscores)
                    .map { "; did you mean \(DaemonSettings.environmentName($0))?" }
                problems.append(ConfigurationError(key: variable, source: .environment(variable: variable), value: environment[variable],
                                                   problem: "unknown setting; variables are GPSTRACKD_ and a key in upper case with underscores" + (guess ?? "")))
                continue
            }
            apply(name, environment[variable] ?? "", .environment(variable: variable))
        }
    }

    /// The first mistake with the others attached, if any.
    var failure: ConfigurationError? {
        guard var first = problems.first else { return nil }
        first.others = Array(problems.dropFirst())
        return first
    }
}
