import Synchronization
import TrackingCore

/// A small structured logger: a label, a level, and lines on stderr in one of `LogFormat`.
///
/// Messages are autoclosures, so a disabled level costs nothing. Lines go out with one `write(2)`
/// each, so lines from different threads never interleave. Tests pass a `sink` to collect lines.
public struct Logger: Sendable {
    /// Where finished lines go.
    public typealias Sink = @Sendable (String) -> Void

    /// Shared by every copy of this logger, so a reload changes the level everywhere at once.
    private let threshold: Threshold

    public var level: LogLevel {
        get { threshold.level }
        nonmutating set { threshold.level = newValue }
    }
    public var format: LogFormat
    private let sink: Sink
    private let now: @Sendable () -> FixTime

    public init(
        level: LogLevel = .info,
        format: LogFormat,
        now: @escaping @Sendable () -> FixTime = SystemClock.now,
        sink: @escaping Sink = StandardError.write
    ) {
        self.threshold = Threshold(level)
        self.format = format
        self.now = now
        self.sink = sink
    }

    /// The format for this process: `journal` when stderr is connected to the journal.
    public static func defaultFormat(environment: [String: String]) -> LogFormat {
        environment["JOURNAL_STREAM"].map { !$0.isEmpty } == true ? .journal : .text
    }

    public func log(_ level: LogLevel, _ message: @autoclosure () -> String, _ fields: KeyValuePairs<String, String> = [:]) {
        guard level >= self.level else { return }
        sink(render(level, message(), Array(fields)))
    }

    public func debug(_ message: @autoclosure () -> String, _ fields: KeyValuePairs<String, String> = [:]) {
        log(.debug, message(), fields)
    }

    public func info(_ message: @autoclosure () -> String, _ fields: KeyValuePairs<String, String> = [:]) {
        log(.info, message(), fields)
    }

    public func notice(_ message: @autoclosure () -> String, _ fields: KeyValuePairs<String, String> = [:]) {
        log(.notice, message(), fields)
    }

    public func warning(_ message: @autoclosure () -> String, _ fields: KeyValuePairs<String, String> = [:]) {
        log(.warning, message(), fields)
    }

    public func error(_ message: @autoclosure () -> String, _ fields: KeyValuePairs<String, String> = [:]) {
        log(.error, message(), fields)
    }

    /// One finished line, with a trailing newline.
    func render(_ level: LogLevel, _ message: String, _ fields: [(key: String, value: String)]) -> String {
        var line = ""
        switch format {
        case .journal:
            line = "<\(level.syslogPriority)>\(message)"
            for (key, value) in fields { line += " \(key)=\(Self.quoted(value))" }
        case .text:
            line = "\(now().iso8601) \(level) \(message)"
            for (key, value) in fields { line += " \(key)=\(Self.quoted(value))" }
        case .json:
            line = "{\"time\":\"\(now().iso8601)\",\"level\":\"\(level)\",\"message\":"
            JSONValue.appendQuoted(message, to: &line)
            for (key, value) in fields {
                line += ","
                JSONValue.appendQuoted(key, to: &line)
                line += ":"
                JSONValue.appendQuoted(value, to: &line)
            }
            line += "}"
        }
        return line + "\n"
    }

    /// A value as written after `key=`: bare when it has no spaces or quotes, else double-quoted.
    static func quoted(_ value: String) -> String {
        if !value.isEmpty, !value.contains(where: { $0 == " " || $0 == "\"" || $0 == "=" || $0 == "\n" }) {
            return value
        }
        var out = ""
        JSONValue.appendQuoted(value, to: &out)
        return out
    }
}

/// A log level that can change while copies of the logger are in use.
final class Threshold: Sendable {
    private let raw: Atomic<Int>
    init(_ level: LogLevel) { raw = Atomic(level.rawValue) }
    var level: LogLevel {
        get { LogLevel(rawValue: raw.load(ordering: .relaxed)) ?? .info }
        set { raw.store(newValue.rawValue, ordering: .relaxed) }
    }
}
