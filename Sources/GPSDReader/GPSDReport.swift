import TrackingCore

/// One message read from gpsd, as far as gpstrackd cares about it.
public enum GPSDReport: Sendable, Equatable {
    /// A time-position-velocity report.
    case tpv(TPVReport)
    /// An attitude report; `heading` is the true heading when the report carried one.
    case attitude(heading: Double?, time: FixTime?)
    /// A malformed ATT line from which the heading could still be read (gpsd 3.22 garbles ATT
    /// when GST data shares its union); `nil` when even that failed.
    case malformedAttitude(heading: Double?, time: FixTime?)
    /// A receiver came online (`DEVICE` with an `activated` time).
    case deviceActivated(path: String)
    /// A receiver went away (`DEVICE` with `"activated":0`, e.g. unplugged).
    case deviceDeactivated(path: String)
    /// gpsd's `VERSION` banner.
    case version(release: String)
    /// gpsd reported an error.
    case gpsdError(message: String)
    /// A message of a class gpstrackd does not use (SKY, GST, DEVICES, WATCH, ...).
    case other(className: String)
    /// A line libgps could not parse, or a message with absurd content; counted and skipped.
    case unparsable(line: String)
}

extension GPSDReport {
    /// The value of `"key":"value"` in one gpsd JSON line, found without a full parse.
    /// gpsd writes flat objects with `class` first, so this is reliable for the few
    /// string fields gpstrackd needs from the raw line.
    static func stringField(_ key: String, in line: String) -> String? {
        let needle = "\"\(key)\":\""
        guard let start = line.firstRange(of: needle)?.upperBound,
              let end = line[start...].firstIndex(of: "\"") else { return nil }
        return String(line[start..<end])
    }

    /// Whether the raw line has `"key":0` (a number zero, not a string).
    static func hasZeroField(_ key: String, in line: String) -> Bool {
        guard let start = line.firstRange(of: "\"\(key)\":")?.upperBound else { return false }
        let rest = line[start...].drop(while: { $0 == " " })
        guard rest.first == "0" else { return false }
        let after = rest.dropFirst().first
        return after == nil || after == "," || after == "}" || after == " "
    }

    /// The number after `"key":` in a raw line, when it is a plain finite JSON number.
    static func numberField(_ key: String, in line: String) -> Double? {
        guard let start = line.firstRange(of: "\"\(key)\":")?.upperBound else { return nil }
        let digits = line[start...].prefix(while: { $0.isNumber || $0 == "." || $0 == "-" || $0 == "+" || $0 == "e" || $0 == "E" })
        guard !digits.isEmpty, let value = Double(digits), value.isFinite else { return nil }
        return value
    }

    /// The heading of an ATT line libgps could not parse.
    static func salvageAttitude(rawLine line: String) -> GPSDReport {
        .malformedAttitude(heading: numberField("heading", in: line), time: timeField(in: line))
    }

    /// The `"time"` of a raw line, when present and valid.
    static func timeField(in line: String) -> FixTime? {
        stringField("time", in: line).flatMap { FixTime(iso8601: $0) }
    }

    /// Classifies a raw gpsd line for the messages that need no decoded structure:
    /// DEVICE (libgps 3.22 cannot parse `"activated":0`), VERSION, ERROR and unknown classes.
    /// Returns `nil` for TPV and ATT, whose values come from libgps.
    static func classify(rawLine line: String) -> GPSDReport? {
        guard line.hasPrefix("{"), let className = stringField("class", in: line) else {
            return .unparsable(line: line)
        }
        switch className {
        case "TPV", "ATT":
            return nil
        case "DEVICE":
            let path = stringField("path", in: line) ?? "unknown device"
            if hasZeroField("activated", in: line) { return .deviceDeactivated(path: path) }
            if stringField("activated", in: line) != nil { return .deviceActivated(path: path) }
            return .other(className: className)
        case "VERSION":
            return .version(release: stringField("release", in: line) ?? "unknown")
        case "ERROR":
            return .gpsdError(message: stringField("message", in: line) ?? line)
        default:
            return .other(className: className)
        }
    }
}
