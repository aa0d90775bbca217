import TrackingCore

/// The filter knobs as configuration keys (`--max-deviation 10` on the command line; the same
/// names in the configuration file), each with its validation.
public enum FilterSettings {
    /// One key: its name, what it takes, and how it sets the configuration.
    struct Key: Sendable {
        let name: String
        let help: String
        /// What the value is ("X 1-10000|off").
        let value: String
        /// The value in force, as text (what a reload compares).
        let show: @Sendable (FilterConfiguration) -> String
        let apply: @Sendable (String, inout FilterConfiguration) -> String?

        init(name: String, help: String, value: String = "TEXT", show: @escaping @Sendable (FilterConfiguration) -> String,
             apply: @escaping @Sendable (String, inout FilterConfiguration) -> String?) {
            self.name = name
            self.help = help
            self.value = value
            self.show = show
            self.apply = apply
        }

        /// `help` without its "(default ...)": the table states the default itself.
        var summary: String {
            guard let open = help.firstRange(of: " (default") else { return help }
            return String(help[..<open.lowerBound])
        }
    }

    /// All keys, in the order `--help` lists them.
    static let keys: [Key] = [
        Key(name: "min-mode", help: "2d or 3d (default 2d)", value: "2d|3d", show: { $0.minMode.description }) { text, c in
            guard let mode = FixMode(text) else { return "must be 2d or 3d" }
            c.minMode = mode
            return nil
        },
        number("max-accuracy", \.maxAccuracy, "metres; 'off' to accept any (default 50)", range: 1...10_000, allowOff: true) { c, v in c.maxAccuracy = v },
        number("max-speed", \.maxSpeed, "m/s, jumps implying more are outliers (default 100)", range: 1...10_000) { c, v in c.maxSpeed = v! },
        number("outlier-confirmations", \.outlierConfirmations, "agreeing outliers that confirm a new place (default 3)", range: 1...100, integer: true) { c, v in
            c.outlierConfirmations = Int(v!)
        },
        number("max-future", \.maxFuture, "seconds ahead of a synchronized clock (default 300)", range: 1...86_400 * 365) { c, v in c.maxFuture = v! },
        Key(name: "earliest-time", help: "ISO 8601 time; earlier fixes are implausible (default release date - 512 weeks)",
            value: "TIME", show: { $0.earliestPlausibleTime.iso8601 }) { text, c in
            guard let time = FixTime(iso8601: text) else { return "must be an ISO 8601 UTC time such as 2020-01-01T00:00:00Z" }
            c.earliestPlausibleTime = time
            return nil
        },
        number("max-interval", \.maxInterval, "seconds between kept fixes while moving (default 60)", range: 1...86_400) { c, v in c.maxInterval = v! },
        number("stationary-interval", \.stationaryInterval, "seconds between kept fixes while stopped (default 900)", range: 1...86_400 * 7) { c, v in
            c.stationaryInterval = v!
        },
        number("max-deviation", \.maxDeviation, "metres the kept track may stray from the fixes (default 10)", range: 0.5...10_000) { c, v in
            c.maxDeviation = v!
        },
        number("min-interval", \.minInterval, "seconds, the floor between kept fixes (default 1)", range: 0...3600) { c, v in c.minInterval = v! },
        number("min-distance", \.minDistance, "metres, optional distance trigger (default off)", range: 1...1_000_000, allowOff: true) { c, v in
            c.minDistance = v
        },
        number("min-angle", \.minAngle, "degrees, optional course-change trigger (default off)", range: 1...180, allowOff: true) { c, v in
            c.minAngle = v
        },
        number("moving-speed", \.movingSpeed, "m/s that starts movement (default 2)", range: 0.1...100) { c, v in c.movingSpeed = v! },
        number("stopped-speed", \.stoppedSpeed, "m/s at or below which the vehicle is stopping (default 1)", range: 0...100) { c, v in
            c.stoppedSpeed = v!
        },
        number("stop-delay", \.stopDelay, "seconds of slow fixes that make a stop (default 5)", range: 0...3600) { c, v in c.stopDelay = v! },
        number("departure-distance", \.departureDistance, "metres from the stop point that make a departure (default 50)", range: 1...100_000) { c, v in
            c.departureDistance = v!
        },
    ]

    /// Whether `name` is a filter key.
    public static func isKey(_ name: String) -> Bool { keys.contains { $0.name == name } }

    /// Sets `name` to `value`; returns what is wrong with the value, or `nil`.
    public static func apply(_ name: String, _ value: String, to configuration: inout FilterConfiguration) -> String? {
        guard let key = keys.first(where: { $0.name == name }) else { return "is not a filter setting" }
        return key.apply(value, &configuration)
    }

    /// Checks the relations between keys.
    public static func validate(_ c: FilterConfiguration) -> String? {
        if c.stoppedSpeed >= c.movingSpeed {
            return "stopped-speed (\(c.stoppedSpeed)) must be below moving-speed (\(c.movingSpeed)) for the stop/move hysteresis"
        }
        if c.minInterval > c.maxInterval { return "min-interval (\(c.minInterval)) must not exceed max-interval (\(c.maxInterval))" }
        return nil
    }

    /// `--help` lines for the filter keys.
    static var helpLines: String {
        keys.map { "  --\($0.name.padding(toLength: 22))\($0.help)" }.joined(separator: "\n")
    }

    private static func number<Value: Sendable>(
        _ name: String, _ field: KeyPath<FilterConfiguration, Value> & Sendable, _ help: String, range: ClosedRange<Double>,
        allowOff: Bool = false, integer: Bool = false, _ set: @escaping @Sendable (inout FilterConfiguration, Double?) -> Void
    ) -> Key {
        let rule = NumberRule(range: range, integer: integer)
        return Key(name: name, help: help, value: rule.value + (allowOff ? "|off" : ""), show: { c in
            let value = c[keyPath: field]
            return (value as? Double).map(DaemonSettings.format) ?? (value as? Int).map(String.init) ?? "off"
        }) { text, c in
            if allowOff, text == "off" || text == "none" {
                set(&c, nil)
                return nil
            }
            guard let value = rule.parse(text) else { return rule.problem + (allowOff ? " or 'off'" : "") }
            set(&c, value)
            return nil
        }
    }
}

extension String {
    func padding(toLength length: Int) -> String {
        count >= length ? self + " " : self + String(repeating: " ", count: length - count)
    }
}
