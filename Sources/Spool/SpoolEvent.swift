/// Things the spool did on its own that an operator should hear about.
public enum SpoolEvent: Sendable, Equatable, CustomStringConvertible {
    /// The database was found damaged (at start or while running): it was moved aside, a new one
    /// started, and the positions SQLite could still read were copied into it (`nil`: none could be).
    case damagedFileReplaced(path: String, movedTo: String, reason: String, salvaged: Int?)
    /// Old positions were thinned to stay within a cap or to survive a full disk.
    case evicted(count: Int, reason: EvictionReason)
    /// Rows that cannot be read back as positions were moved to the dead letters.
    case undecodableRowsSetAside(count: Int)
    /// The disk is full: positions wait in memory (in order) until there is room.
    case heldInMemory(path: String, count: Int)
    /// Everything held in memory on a full disk is stored.
    case storedAfterDiskFull
    /// The spool gave up its reserve file to make room on a full disk.
    case reserveReleased(path: String)
    /// The reserve file is back: the disk has room again.
    case reserveRestored(path: String)

    public enum EvictionReason: String, Sendable {
        case maxRows = "spool-max-rows"
        case maxBytes = "spool-max-bytes"
        case diskFull = "disk full"
    }

    /// Whether the operator must act (an error) or should know (a warning).
    public var isError: Bool {
        switch self {
        case .damagedFileReplaced, .heldInMemory: return true
        case .evicted, .undecodableRowsSetAside, .storedAfterDiskFull, .reserveReleased, .reserveRestored: return false
        }
    }

    /// The log line.
    public var description: String {
        switch self {
        case let .damagedFileReplaced(path, movedTo, reason, salvaged):
            let copied = salvaged.map { "copied the \($0) position(s) it could still read into a new spool" }
                ?? "nothing in it can be read back, so a new spool started empty"
            return "spool \(path) is damaged (\(reason)); moved it to \(movedTo) and \(copied). "
                + "The old file is kept for inspection with sqlite3; check the disk and what else writes there"
        case let .evicted(count, reason):
            return "spool full (\(reason.rawValue)): thinned the oldest positions, dropped \(count)"
        case let .undecodableRowsSetAside(count):
            return "\(count) spool row(s) could not be read back as positions; moved them to the dead letters so the rest can upload"
        case let .heldInMemory(path, count):
            return "disk full at \(path): \(count) position(s) wait in memory and are stored as soon as there is room "
                + "(up to \(10_000), then the oldest are thinned); free space on that filesystem"
        case .storedAfterDiskFull:
            return "the disk has room again: every position held in memory is stored"
        case let .reserveReleased(path):
            return "disk full: gave up the spool's reserve \(path) to keep storing positions"
        case let .reserveRestored(path):
            return "the disk has room again: the spool's reserve \(path) is back"
        }
    }
}
