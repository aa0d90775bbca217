import TrackingCore

/// One message read from gpsd, as far as gpstrackd cares about it.
public enum GPSDReport: Sendable, Equatable {
    /// A time-position-velocity report.
    case tpv(TPVReport)
    /// An attitude report; `heading` is the true heading when the report carried one.
    case attitude(heading: Double?, time: FixTime?)
    /// The receiver's own error statistics for an epoch (GST), when they say something.
    case errorEstimate(ErrorEstimate)
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
    /// A message of a class gpstrackd does not use (SKY, DEVICES, WATCH, ..., a GST without
    /// errors).
    case other(className: String)
    /// A line libgps could not parse, or a message with absurd content; counted and skipped.
    case unparsable(line: String)
}

extension GPSDReport {
    /// The heading of an ATT line libgps could not parse.
    static func salvageAttitude(rawLine line: String) -> GPSDReport {
        line.withCString { salvageAttitude(RawLine(base: $0)) }
    }

    static func salvageAttitude(_ line: RawLine) -> GPSDReport {
        .malformedAttitude(heading: line.number(#""heading":"#), time: time(of: line))
    }

    /// The `"time"` of a raw line, when present and valid.
    static func time(of line: RawLine) -> FixTime? {
        line.string(#""time":""#).flatMap { FixTime(iso8601: $0) }
    }

    /// Classifies a raw gpsd line for the messages that need no decoded structure:
    /// DEVICE (libgps 3.22 cannot parse `"activated":0`), VERSION, ERROR and unknown classes.
    /// Returns `nil` for TPV, ATT and GST, whose values come from libgps.
    static func classify(rawLine line: String) -> GPSDReport? {
        line.withCString { classify(RawLine(base: $0)) }
    }

    static func classify(_ line: RawLine) -> GPSDReport? {
        guard line.hasPrefix("{"), let className = line.string(#""class":""#) else {
            return .unparsable(line: line.text)
        }
        switch className {
        case "TPV", "ATT", "GST":
            return nil
        case "DEVICE":
            let path = line.string(#""path":""#) ?? "unknown device"
            if line.isZero(#""activated":"#) { return .deviceDeactivated(path: path) }
            if line.string(#""activated":""#) != nil { return .deviceActivated(path: path) }
            return .other(className: className)
        case "VERSION":
            return .version(release: line.string(#""release":""#) ?? "unknown")
        case "ERROR":
            return .gpsdError(message: line.string(#""message":""#) ?? line.text)
        default:
            return .other(className: className)
        }
    }
}
