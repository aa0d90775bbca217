/// The dimension of a position fix. Reports without a fix (gpsd mode 0 or 1) never become a `Location`.
public enum FixMode: Int, Sendable, Hashable, BitwiseCopyable, Comparable, CustomStringConvertible {
    /// Latitude and longitude are valid; altitude is not.
    case twoD = 2
    /// Latitude, longitude and altitude are valid.
    case threeD = 3

    /// The fix mode for gpsd's `mode` value; `nil` for "not seen" (0) and "no fix" (1).
    public init?(gpsdMode: Int) {
        switch gpsdMode {
        case 2: self = .twoD
        case 3: self = .threeD
        default: return nil
        }
    }

    /// `"2d"` or `"3d"`, as written in the JSON line and the configuration.
    public var description: String { self == .twoD ? "2d" : "3d" }

    /// Parses `"2d"`/`"3d"` (and `2`/`3`).
    public init?(_ text: String) {
        switch text.lowercased() {
        case "2d", "2": self = .twoD
        case "3d", "3": self = .threeD
        default: return nil
        }
    }

    public static func < (lhs: FixMode, rhs: FixMode) -> Bool { lhs.rawValue < rhs.rawValue }
}
