/// The gpsd device path a fix came from, held inline: up to 127 bytes of UTF-8, as libgps holds
/// it (`GPS_PATH_MAX`, 128 bytes with the terminating NUL), so no path gpsd reports is cut.
///
/// Why inline: every stage of the filter copies and holds locations (the gate's held fixes, the
/// triggers' stretch, the spacing's window). With the path a `String`, each copy retained and
/// released it and went through the location's value witnesses instead of a plain move: an
/// eighth of the filter's instructions under TimeBased at 1 Hz. Inline, a location is plain
/// bytes (`BitwiseCopyable`), 128 of them the path's.
public struct DevicePath: Sendable, Equatable, BitwiseCopyable, CustomStringConvertible, CustomDebugStringConvertible {
    /// The most bytes a path holds.
    public static var capacity: Int { Bytes.count }

    private typealias Bytes = InlineArray<127, UInt8>
    private var bytes = Bytes(repeating: 0)
    private var count: UInt8 = 0

    /// No path.
    public init() {}

    /// `path`, cut at the last whole character within `capacity` bytes when it is longer (a path
    /// libgps gives never is).
    public init(_ path: String) {
        var path = path
        // Read in place: a location is made of every fix the reader gets.
        path.withUTF8 { utf8 in
            var length = min(utf8.count, Self.capacity)
            // A byte 10xxxxxx continues a character: cut before the character it belongs to.
            while length < utf8.count, length > 0, utf8[length] & 0xC0 == 0x80 { length -= 1 }
            for k in 0..<length { bytes[k] = utf8[k] }
            count = UInt8(length)
        }
    }

    public var isEmpty: Bool { count == 0 }

    /// The path as text.
    public var description: String {
        String(unsafeUninitializedCapacity: Int(count)) { buffer in
            for k in 0..<Int(count) { buffer[k] = bytes[k] }
            return Int(count)
        }
    }

    /// The path quoted, as a `String` prints (a location printed in a test's failure shows it).
    public var debugDescription: String { description.debugDescription }

    public static func == (a: DevicePath, b: DevicePath) -> Bool {
        guard a.count == b.count else { return false }
        for k in 0..<Int(a.count) where a.bytes[k] != b.bytes[k] { return false }
        return true
    }
}
