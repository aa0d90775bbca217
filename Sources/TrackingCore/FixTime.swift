/// The time of a fix as the receiver reported it, in nanoseconds since 1970-01-01T00:00:00Z (UTC).
///
/// gpstrackd never stamps a position with the time it was read or uploaded: every stage orders,
/// filters and uploads by this receiver time. It is an integer so that two reports of the same epoch
/// compare equal exactly (gpsd sends several TPVs per epoch), with no floating-point rounding.
public struct FixTime: Sendable, Hashable, BitwiseCopyable, Comparable, CustomStringConvertible {
    /// Nanoseconds since the Unix epoch, UTC.
    public var nanosecondsSince1970: Int64

    public init(nanosecondsSince1970: Int64) {
        self.nanosecondsSince1970 = nanosecondsSince1970
    }

    /// A time from a POSIX `timespec`-like pair; `nil` for a zero or negative time (libgps leaves
    /// `fix.time` at zero when a report had none).
    public init?(seconds: Int64, nanoseconds: Int64) {
        guard seconds > 0 || (seconds == 0 && nanoseconds > 0) else { return nil }
        guard seconds < Int64.max / 1_000_000_000 - 1 else { return nil }
        self.nanosecondsSince1970 = seconds * 1_000_000_000 + nanoseconds
    }

    /// Seconds since the Unix epoch, as a floating-point value.
    public var secondsSince1970: Double { Double(nanosecondsSince1970) / 1e9 }

    /// Milliseconds since the Unix epoch, rounded down.
    public var millisecondsSince1970: Int64 { Self.floorDiv(nanosecondsSince1970, 1_000_000) }

    /// Seconds from `self` to `other` (positive when `other` is later).
    public func seconds(to other: FixTime) -> Double {
        Double(other.nanosecondsSince1970 - nanosecondsSince1970) / 1e9
    }

    /// This time moved by `seconds`.
    public func adding(seconds: Double) -> FixTime {
        FixTime(nanosecondsSince1970: nanosecondsSince1970 + Int64((seconds * 1e9).rounded()))
    }

    public static func < (lhs: FixTime, rhs: FixTime) -> Bool {
        lhs.nanosecondsSince1970 < rhs.nanosecondsSince1970
    }

    /// ISO 8601 UTC with milliseconds, e.g. `2026-11-01T08:00:01.000Z`.
    public var iso8601: String { iso8601(milliseconds: true) }

    /// As `iso8601`, but a whole second without its `.000` (`2026-11-01T08:00:01Z`), as botocore
    /// writes timestamps: what goes to the tracker, four bytes fewer for a 1 Hz receiver's fixes.
    public var wireISO8601: String { iso8601(milliseconds: millisecondsSince1970 % 1000 != 0) }

    private func iso8601(milliseconds: Bool) -> String {
        let millis = millisecondsSince1970
        let days = Self.floorDiv(millis, 86_400_000)
        let msOfDay = millis - days * 86_400_000
        let (year, month, day) = Self.civil(fromDays: days)
        let hour = msOfDay / 3_600_000
        let minute = (msOfDay / 60_000) % 60
        let second = (msOfDay / 1000) % 60
        let ms = msOfDay % 1000
        var out = ""
        out.reserveCapacity(24)
        Self.append(year, width: 4, to: &out)
        out.append("-")
        Self.append(month, width: 2, to: &out)
        out.append("-")
        Self.append(day, width: 2, to: &out)
        out.append("T")
        Self.append(hour, width: 2, to: &out)
        out.append(":")
        Self.append(minute, width: 2, to: &out)
        out.append(":")
        Self.append(second, width: 2, to: &out)
        if milliseconds {
            out.append(".")
            Self.append(ms, width: 3, to: &out)
        }
        out.append("Z")
        return out
    }

    public var description: String { iso8601 }

    /// Parses ISO 8601 UTC times as gpsd and the tracker API write them:
    /// `YYYY-MM-DDTHH:MM:SS[.fraction](Z|±HH:MM)`. Returns `nil` for anything else.
    public init?(iso8601 text: String) {
        let bytes = Array(text.utf8)
        func number(_ start: Int, _ count: Int) -> Int64? {
            guard start + count <= bytes.count else { return nil }
            var value: Int64 = 0
            for b in bytes[start..<(start + count)] {
                guard b >= 48 && b <= 57 else { return nil }
                value = value * 10 + Int64(b - 48)
            }
            return value
        }
        guard bytes.count >= 20,
              let year = number(0, 4), bytes[4] == UInt8(ascii: "-"),
              let month = number(5, 2), bytes[7] == UInt8(ascii: "-"),
              let day = number(8, 2), bytes[10] == UInt8(ascii: "T") || bytes[10] == UInt8(ascii: " "),
              let hour = number(11, 2), bytes[13] == UInt8(ascii: ":"),
              let minute = number(14, 2), bytes[16] == UInt8(ascii: ":"),
              let second = number(17, 2),
              (1...12).contains(month), (1...31).contains(day), hour < 24, minute < 60, second < 61
        else { return nil }
        var index = 19
        var fraction: Int64 = 0
        if index < bytes.count, bytes[index] == UInt8(ascii: ".") {
            index += 1
            var scale: Int64 = 100_000_000
            var digits = 0
            while index < bytes.count, bytes[index] >= 48, bytes[index] <= 57 {
                fraction += Int64(bytes[index] - 48) * scale
                scale /= 10
                index += 1
                digits += 1
            }
            guard digits > 0 else { return nil }
        }
        var offsetSeconds: Int64 = 0
        guard index < bytes.count else { return nil }
        if bytes[index] == UInt8(ascii: "Z") {
            index += 1
        } else if bytes[index] == UInt8(ascii: "+") || bytes[index] == UInt8(ascii: "-") {
            let sign: Int64 = bytes[index] == UInt8(ascii: "+") ? 1 : -1
            guard let oh = number(index + 1, 2), index + 3 < bytes.count, bytes[index + 3] == UInt8(ascii: ":"),
                  let om = number(index + 4, 2) else { return nil }
            offsetSeconds = sign * (oh * 3600 + om * 60)
            index += 6
        } else {
            return nil
        }
        guard index == bytes.count else { return nil }
        let days = Self.days(fromCivil: year, month, day)
        let seconds = days * 86_400 + hour * 3600 + minute * 60 + second - offsetSeconds
        self.nanosecondsSince1970 = seconds * 1_000_000_000 + fraction
    }

    // MARK: - Calendar arithmetic (proleptic Gregorian, days since 1970-01-01)

    static func floorDiv(_ a: Int64, _ b: Int64) -> Int64 {
        let q = a / b
        return (a % b != 0 && (a < 0) != (b < 0)) ? q - 1 : q
    }

    static func civil(fromDays z0: Int64) -> (Int64, Int64, Int64) {
        let z = z0 + 719_468
        let era = floorDiv(z, 146_097)
        let doe = z - era * 146_097
        let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365
        let doy = doe - (365 * yoe + yoe / 4 - yoe / 100)
        let mp = (5 * doy + 2) / 153
        let d = doy - (153 * mp + 2) / 5 + 1
        let m = mp < 10 ? mp + 3 : mp - 9
        return (yoe + era * 400 + (m <= 2 ? 1 : 0), m, d)
    }

    static func days(fromCivil y0: Int64, _ m: Int64, _ d: Int64) -> Int64 {
        let y = m <= 2 ? y0 - 1 : y0
        let era = floorDiv(y, 400)
        let yoe = y - era * 400
        let doy = (153 * (m > 2 ? m - 3 : m + 9) + 2) / 5 + d - 1
        let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy
        return era * 146_097 + doe - 719_468
    }

    private static func append(_ value: Int64, width: Int, to out: inout String) {
        let digits = String(value)
        if digits.count < width {
            out.append(String(repeating: "0", count: width - digits.count))
        }
        out.append(digits)
    }
}
