import AWSLocation
import TrackingCore

/// Options of `gpstrackd history`.
public struct HistoryOptions: Sendable, Equatable {
    public enum Format: String, Sendable { case json, gpx }

    public var deviceID: String?
    /// `--since`: a duration back from now (`90s`, `30m`, `6h`, `2d`) or a time.
    public var since: String = "24h"
    public var until: String?
    public var format = Format.json
    public var tracker: String?
    public var region: String?
    public var endpoint: ServiceEndpoint?
    public var profile: String?
    public var identityPoolID: String?
    public var stateDirectory: String?

    public init() {}

    static func parse(_ arguments: ArraySlice<String>) throws(CommandLineError) -> HistoryOptions {
        var options = HistoryOptions()
        var rest = arguments
        while let argument = rest.popFirst() {
            var name = argument
            var inline: String?
            if let equals = argument.firstIndex(of: "="), argument.hasPrefix("--") {
                name = String(argument[..<equals])
                inline = String(argument[argument.index(after: equals)...])
            }
            func value() throws(CommandLineError) -> String {
                if let inline { return inline }
                guard let next = rest.popFirst() else { throw CommandLineError("\(name) needs a value") }
                return next
            }
            switch name {
            case "--device-id": options.deviceID = try value()
            case "--since": options.since = try value()
            case "--until": options.until = try value()
            case "--format":
                let text = try value()
                guard let format = Format(rawValue: text) else { throw CommandLineError("--format '\(text)' must be json or gpx") }
                options.format = format
            case "--tracker": options.tracker = try value()
            case "--region": options.region = try value()
            case "--endpoint":
                let text = try value()
                do { options.endpoint = try ServiceEndpoint(text) } catch { throw CommandLineError("--endpoint: \(error)") }
            case "--profile": options.profile = try value()
            case "--identity-pool-id": options.identityPoolID = try value()
            case "--state-dir": options.stateDirectory = try value()
            default: throw CommandLineError("unknown option '\(argument)' for history")
            }
        }
        guard options.tracker?.isEmpty == false else { throw CommandLineError("history needs --tracker NAME") }
        return options
    }

    /// `--since`/`--until` as times: a duration counts back from `now`.
    static func time(_ text: String, now: FixTime) -> FixTime? {
        if let time = FixTime(iso8601: text) { return time }
        let units: [Character: Double] = ["s": 1, "m": 60, "h": 3600, "d": 86_400]
        guard let unit = text.last, let scale = units[unit], let amount = Double(text.dropLast()), amount >= 0 else { return nil }
        return now.adding(seconds: -amount * scale)
    }
}
