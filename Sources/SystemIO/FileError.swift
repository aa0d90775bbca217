/// A file operation that failed: what it was doing, on which path, and why.
public struct FileError: Error, Sendable, Equatable, CustomStringConvertible {
    public enum Reason: Error, Sendable, Equatable, CustomStringConvertible {
        case system(Errno)
        case tooLarge(limit: Int)
        case isDirectory

        public var description: String {
            switch self {
            case let .system(errno): return errno.description
            case let .tooLarge(limit): return "larger than \(limit / 1024) KiB, not a small text file"
            case .isDirectory: return "is a directory"
            }
        }
    }

    /// "create a temporary file in /var/lib/gpstrackd", "read", "rename ... to ...".
    public var doing: String
    public var reason: Reason

    public init(_ doing: String, _ reason: Reason) {
        self.doing = doing
        self.reason = reason
    }

    public var errno: Errno? {
        if case let .system(errno) = reason { return errno }
        return nil
    }

    public var description: String { "cannot \(doing): \(reason)" }
}
