import CSQLite
import Glibc

/// Opening the file, checking it, and replacing it when it turns out damaged.
extension SpoolStore {
    /// Opens the file, refuses one this process cannot write, sets the durability pragmas,
    /// migrates, and reads it once end to end.
    static func openAndCheck(_ path: String) throws(SpoolError) -> Database {
        try checkWritable(path)
        let database = try Database(path: path)
        if database.isReadOnly { throw .readOnly(path: path, owner: owner(of: path)) }
        // WAL: appends write a frame at the end of the log; readers never block the writer.
        try database.execute("PRAGMA journal_mode = WAL")
        // FULL: every commit fsyncs the log before it returns (see Spool's durability contract).
        try database.execute("PRAGMA synchronous = FULL")
        // Checkpoint every 256 pages (1 MiB, not SQLite's 4 MiB) and cut the log back to 1 MiB
        // after one: on a small or full filesystem the log is what runs out of room first.
        try database.execute("PRAGMA wal_autocheckpoint = 256")
        try database.execute("PRAGMA journal_size_limit = 1048576")
        // A small page cache (the default is 2 MB): the spool works at its two ends, oldest rows
        // for upload and newest for append, and a fleet box's memory is better left to others.
        try database.execute("PRAGMA cache_size = -256")
        try SpoolSchema.migrate(database)
        // Reading every row of both tables once finds damaged pages now rather than mid-upload.
        _ = try database.integer("SELECT count(*) FROM positions")
        _ = try database.integer("SELECT count(*) FROM dead_letters")
        return database
    }

    static func isCorruption(_ error: SpoolError) -> Bool {
        guard let code = error.primaryCode else { return false }
        return code == SQLITE_CORRUPT || code == SQLITE_NOTADB
    }

    /// Runs `body`; when it finds the database damaged, the file is moved aside, what can be read
    /// is copied into a new spool, and `body` runs once more on it.
    func recoveringFromDamage<T>(_ body: (SpoolStore) throws(SpoolError) -> T) throws(SpoolError) -> T {
        do {
            return try body(self)
        } catch let error where Self.isCorruption(error) {
            let old = database
            old.keepLogOnClose()
            let movedTo = try SpoolSalvage.moveAside(path)
            database = try Self.openAndCheck(path)
            let salvaged = SpoolSalvage.copy(from: old, into: database)
            queued = Int(try database.integer("SELECT count(*) FROM positions") ?? 0)
            events(.damagedFileReplaced(path: path, movedTo: movedTo, reason: error.description, salvaged: salvaged))
            return try body(self)
        }
    }

    /// Copies what the damaged file at `movedTo` still holds into `database`.
    static func salvage(from movedTo: String, into database: Database) -> Int {
        guard let old = try? Database(path: movedTo) else { return 0 }
        old.keepLogOnClose()
        return SpoolSalvage.copy(from: old, into: database)
    }

    /// Refuses a spool file (or log) this process cannot write: SQLite would open it read-only
    /// without a word, and no acknowledgement could ever be written.
    static func checkWritable(_ path: String) throws(SpoolError) {
        for file in [path, path + "-wal", path + "-shm"] where access(file, F_OK) == 0 {
            if faccessat(AT_FDCWD, file, W_OK, AT_EACCESS) != 0 { throw .readOnly(path: file, owner: owner(of: file)) }
        }
    }

    static func owner(of path: String) -> UInt32? {
        var info = stat()
        return stat(path, &info) == 0 ? info.st_uid : nil
    }
}
