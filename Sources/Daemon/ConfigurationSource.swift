/// Where a configuration value came from, for messages and `check-config`.
public enum ConfigurationSource: Sendable, Equatable, CustomStringConvertible {
    case builtIn
    case file(path: String, line: Int)
    case environment(variable: String)
    case flag(name: String)

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

    public init(key: String, source: ConfigurationSource, value: String?, problem: String) {
        self.key = key
        self.source = source
        self.value = value
        self.problem = problem
    }

    public var description: String {
        let shown = value.map { DaemonSettings.isSecret(key) ? " = <redacted>" : " = '\($0)'" } ?? ""
        return "\(source): \(key)\(shown): \(problem)"
    }
}
