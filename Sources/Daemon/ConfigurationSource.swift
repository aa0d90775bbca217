/// Where a configuration value came from, for messages and `check-config`.
public enum ConfigurationSource: Sendable, Equatable, CustomStringConvertible {
    case builtIn
    case file(path: String, line: Int)
    case environment(variable: String)
    case flag(name: String)

    /// Whether two sources are the same kind (both the file, both flags): a key set twice in one
    /// kind is probably a mistake, where a flag overriding the file is the point of flags.
    func isSameKind(as other: ConfigurationSource) -> Bool {
        switch (self, other) {
        case (.file, .file), (.flag, .flag), (.environment, .environment): return true
        default: return false
        }
    }

    public var description: String {
        switch self {
        case .builtIn: return "default"
        case let .file(path, line): return "\(path):\(line)"
        case let .environment(variable): return "environment \(variable)"
        case let .flag(name): return "flag \(name)"
        }
    }
}

/// A configuration mistake: the key, its source, the value, and what is allowed. Exit 78 (EX_CONFIG).
public struct ConfigurationError: Error, Sendable, Equatable, CustomStringConvertible {
    public var key: String
    public var source: ConfigurationSource
    public var value: String?
    public var problem: String
    /// The further mistakes found in the same configuration (check-config names them all).
    public var others: [ConfigurationError] = []

    public init(key: String, source: ConfigurationSource, value: String?, problem: String) {
        self.key = key
        self.source = source
        self.value = value
        self.problem = problem
    }

    /// This mistake and the others, one per line.
    public var all: [ConfigurationError] {
        var first = self
        first.others = []
        return [first] + others
    }

    public var description: String {
        let shown = value.map { value in
            if DaemonSettings.mayShowValue(of: key) { return " = '\(Self.visible(value))'" }
            return DaemonSettings.isSecret(key) ? " = <redacted>" : " (value not shown)"
        } ?? ""
        return "\(source): \(Self.visible(key))\(shown): \(problem)" + others.map { "\n\($0)" }.joined()
    }

    /// `text` with invisible characters (controls, a byte-order mark, zero-width spaces) written
    /// as `\u{...}`, so that a message shows what is really there.
    static func visible(_ text: String) -> String {
        var out = ""
        for scalar in text.unicodeScalars {
            switch scalar.properties.generalCategory {
            case .control, .format, .lineSeparator, .paragraphSeparator, .unassigned, .privateUse, .surrogate:
                out += "\\u{" + String(scalar.value, radix: 16, uppercase: true) + "}"
            default:
                out.unicodeScalars.append(scalar)
            }
        }
        return out
    }
}
