import Glibc

/// What went wrong in the spool, with the SQLite result code, its message and the statement.
public enum SpoolError: Error, Sendable, Equatable, CustomStringConvertible {
    /// A SQLite call failed.
    case sqlite(code: Int32, message: String, sql: String)
    /// The state directory cannot be created or written.
    case directory(path: String, reason: String)
    /// A spool file this process cannot write (another owner, a read-only mount).
    case readOnly(path: String, owner: UInt32?)

    public var description: String {
        switch self {
        case let .sqlite(code, message, sql):
            return "spool database error \(code) (\(message)) in: \(sql)"
        case let .directory(path, reason):
            return "cannot use state directory \(path): \(reason); create it writable for the gpstrackd user or set state-dir"
        case let .readOnly(path, owner):
            let who = owner.map { "it belongs to uid \($0), this process runs as uid \(getuid())" } ?? "it cannot be written"
            return "cannot write the spool file \(path) (\(who)); no acknowledgement could be stored and everything would be sent again. "
                + "Give it to the gpstrackd user (chown), or move it away to start a new spool"
        }
    }

    /// SQLite's primary result code (extended codes carry it in the low byte).
    public var primaryCode: Int32? {
        if case let .sqlite(code, _, _) = self { return code & 0xff }
        return nil
    }
}
