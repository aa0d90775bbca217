import GPSDReader
import TrackingCore

/// Options of `gpstrackd watch`.
public struct WatchOptions: Sendable, Equatable {
    public var endpoint = GPSDEndpoint.standard
    public var noDataTimeout: Duration = .seconds(10)
    /// `--accuracy-source`, as the daemon's key.
    public var accuracySource = AccuracySource.gst
    public var logLevel: LogLevel = .info
    public var logFormat: LogFormat?
    /// `--filter`: print only the fixes the filter chain keeps.
    public var filter = false
    public var filterConfiguration = FilterConfiguration()

    public init() {}

    static func parse(_ arguments: ArraySlice<String>) throws(CommandLineError) -> WatchOptions {
        var options = WatchOptions()
        var rest = arguments
        var filterKeys: [String] = []
        while let argument = rest.popFirst() {
            var name = argument
            var value: String?
            if let equals = argument.firstIndex(of: "="), argument.hasPrefix("--") {
                name = String(argument[..<equals])
                value = String(argument[argument.index(after: equals)...])
            }
            func required() throws(CommandLineError) -> String {
                if let value { return value }
                guard let next = rest.popFirst() else { throw CommandLineError("\(name) needs a value") }
                return next
            }
            switch name {
            case "--gpsd":
                let text = try required()
                guard let endpoint = GPSDEndpoint(text) else {
                    throw CommandLineError("--gpsd '\(text)' is not HOST:PORT (for example 127.0.0.1:2947)")
                }
                options.endpoint = endpoint
            case "--no-data-timeout":
                let text = try required()
                guard let seconds = Double(text), seconds.isFinite, seconds >= 1, seconds <= 3600 else {
                    throw CommandLineError("--no-data-timeout '\(text)' must be a number of seconds from 1 to 3600")
                }
                options.noDataTimeout = .milliseconds(Int64(seconds * 1000))
            case "--accuracy-source":
                let text = try required()
                guard let source = AccuracySource(rawValue: text) else {
                    throw CommandLineError("--accuracy-source '\(text)' must be \(AccuracySource.choices)")
                }
                options.accuracySource = source
            case "--log-level":
                let text = try required()
                guard let level = LogLevel(text) else {
                    throw CommandLineError("--log-level '\(text)' must be one of \(LogLevel.allCases.map(\.description).joined(separator: ", "))")
                }
                options.logLevel = level
            case "--log-format":
                let text = try required()
                guard let format = LogFormat(rawValue: text) else {
                    throw CommandLineError("--log-format '\(text)' must be one of journal, text, json")
                }
                options.logFormat = format
            case "--filter":
                guard value == nil else { throw CommandLineError("--filter takes no value") }
                options.filter = true
            case _ where name.hasPrefix("--") && FilterSettings.isKey(String(name.dropFirst(2))):
                let key = String(name.dropFirst(2))
                let text = try required()
                if let problem = FilterSettings.apply(key, text, to: &options.filterConfiguration) {
                    throw CommandLineError("--\(key) '\(text)' \(problem)")
                }
                filterKeys.append(name)
            default:
                throw CommandLineError("unknown option '\(argument)' for watch")
            }
        }
        if let first = filterKeys.first, !options.filter {
            throw CommandLineError("\(first) is a filter setting; add --filter to apply the filter chain")
        }
        if let problem = FilterSettings.validate(options.filterConfiguration) {
            throw CommandLineError(problem)
        }
        return options
    }
}
