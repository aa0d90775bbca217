import Glibc

/// One line from gpsd as libgps left it in its buffer: a NUL-terminated C string, searched in
/// place. The reader looks at every message gpsd sends (TPV, SKY, GST, ATT, ... several per fix),
/// so nothing here allocates unless a caller asks for a `String`.
///
/// gpsd writes flat JSON objects with `class` first; the few string and number fields gpstrackd
/// reads from the raw line are found by their `"key":` pattern.
struct RawLine {
    let base: UnsafePointer<CChar>

    /// Whether the line is empty (libgps copies nothing on a disconnect).
    var isEmpty: Bool { base.pointee == 0 }

    /// The whole line, for messages that carry it on.
    var text: String { String(cString: base) }

    /// Whether the line starts with `prefix` (a JSON fragment such as `{"class":"TPV"`).
    func hasPrefix(_ prefix: StaticString) -> Bool {
        strncmp(base, UnsafeRawPointer(prefix.utf8Start).assumingMemoryBound(to: CChar.self), prefix.utf8CodeUnitCount) == 0
    }

    /// Where the text after the first `pattern` (e.g. `"path":"`) starts, if the line has it.
    func after(_ pattern: StaticString) -> UnsafePointer<CChar>? {
        // A string literal's UTF-8 is NUL-terminated, as strstr needs.
        let needle = UnsafeRawPointer(pattern.utf8Start).assumingMemoryBound(to: CChar.self)
        return strstr(base, needle).map { UnsafePointer($0) + pattern.utf8CodeUnitCount }
    }

    /// The value of a string field; `pattern` is the key with its opening quote: `"path":"`.
    func string(_ pattern: StaticString) -> String? {
        guard let start = after(pattern), let end = strchr(start, Int32(UInt8(ascii: "\""))) else { return nil }
        let count = UnsafePointer<CChar>(end) - start
        return start.withMemoryRebound(to: UInt8.self, capacity: count) {
            String(decoding: UnsafeBufferPointer(start: $0, count: count), as: UTF8.self)
        }
    }

    /// Whether `pattern` (`"activated":`) is followed by the number zero.
    func isZero(_ pattern: StaticString) -> Bool {
        guard var p = after(pattern) else { return false }
        while p.pointee == 0x20 { p += 1 }
        guard p.pointee == 0x30 else { return false }
        return Self.endsValue(p[1])
    }

    /// The plain finite JSON number after `pattern` (`"heading":`).
    func number(_ pattern: StaticString) -> Double? {
        guard let start = after(pattern) else { return nil }
        let first = UInt8(bitPattern: start.pointee)
        guard first == UInt8(ascii: "-") || (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(first) else { return nil }
        var end: UnsafeMutablePointer<CChar>?
        let value = strtod(start, &end)
        guard let end, UnsafePointer(end) > start, value.isFinite else { return nil }
        return value
    }

    /// Whether a JSON value ends before `byte`: end of line, separator, end of object or a space.
    private static func endsValue(_ byte: CChar) -> Bool {
        byte == 0 || byte == 0x2C || byte == 0x7D || byte == 0x20
    }
}
