/// Things the spool did on its own that an operator should hear about.
public enum SpoolEvent: Sendable, Equatable, CustomStringConvertible {
    /// The database could not be read; it was moved aside and a new one started.
    case corruptFileMovedAside(path: String, movedTo: String, reason: String)
    /// Old positions were thinned to stay within a cap or to survive a full disk.
    case evicted(count: Int, reason: EvictionReason)

    public enum EvictionReason: String, Sendable {
        case maxRows = "spool-max-rows"
        case maxBytes = "spool-max-bytes"
        case diskFull = "disk full"
    }

    /// Whether the operator must act (an error) or should know (a warning).
    public var isError: Bool {
        if case .corruptFileMovedAside = self { return true }
        return false
    }

    /// The log line.
    public var description: String {
        switch self {
        case let .corruptFileMovedAside(path, movedTo, reason):
            return "spool \(path) could not be read (\(reason)); moved it to \(movedTo) and started a new spool. "
                + "Positions in the old file are not uploaded; inspect it with sqlite3"
        case let .evicted(count, reason):
            return "spool full (\(reason.rawValue)): thinned the oldest positions, dropped \(count)"
        }
    }
}
