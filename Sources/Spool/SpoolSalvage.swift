import CSQLite
import Glibc
import TrackingCore

/// Moves a damaged spool aside and copies into a new one every position SQLite can still read.
///
/// A damaged file is never deleted: it is renamed to `spool.db.corrupt-<UTC time>` (with its log
/// files) for inspection. Rows are copied with their ids, so an acknowledgement for a position
/// already in flight still finds it. A damaged page loses the rows on it, not the rest: reading
/// skips ahead past a row range that cannot be read.
enum SpoolSalvage {
    /// Renames the database and its log files to `spool.db.corrupt-<UTC time>`; returns the new name.
    static func moveAside(_ path: String) throws(SpoolError) -> String {
        let stamp = String(SystemClock.now().iso8601.filter { $0 != ":" })
        let target = "\(path).corrupt-\(stamp)"
        for suffix in ["", "-wal", "-shm"] where access(path + suffix, F_OK) == 0 {
            if rename(path + suffix, target + suffix) != 0 {
                throw .directory(path: path, reason: "cannot move the unreadable spool aside: \(String(cString: strerror(errno)))")
            }
        }
        return target
    }

    /// Why the file at `path` is damaged before SQLite opens it, if it is: an empty database beside
    /// a write-ahead log that holds data (SQLite would start afresh and delete the log).
    static func truncatedBesideLog(_ path: String) -> String? {
        guard let size = fileSize(path), size == 0, let log = fileSize(path + "-wal"), log > 0 else { return nil }
        return "the database file is empty but its write-ahead log holds \(log) bytes (the file was truncated)"
    }

    /// Copies the positions (and the eviction counter) `old` can read into `new`; returns how many.
    static func copy(from old: Database, into new: Database) -> Int {
        let columns = "id, " + SpoolSchema.selectColumns
        let parameters = Array(repeating: "?", count: 17).joined(separator: ", ")
        var after: Int64 = 0
        var skip: Int64 = 1
        var copied = 0
        while skip < 1 << 40 {
            var batch = 0
            var unreadable = false
            do throws(SpoolError) {
                let select = try old.statement("SELECT \(columns) FROM positions WHERE id > ? ORDER BY id LIMIT 512")
                let insert = try new.statement("INSERT OR IGNORE INTO positions (\(columns)) VALUES (\(parameters))")
                select.bind(1, after)
                defer { select.reset() }
                var last = after
                try new.transaction { () throws(SpoolError) in
                    while true {
                        let hasRow: Bool
                        do throws(SpoolError) { hasRow = try select.step() } catch { unreadable = true; break }
                        guard hasRow else { break }
                        for column in Int32(0)..<17 { insert.bind(column + 1, column: column, of: select) }
                        try insert.run()
                        last = select.int64(0)
                        batch += 1
                    }
                }
                after = last
            } catch {
                // The old file cannot be asked at all, or the new one cannot take the rows: stop.
                break
            }
            copied += batch
            if batch > 0 { skip = 1 }
            if !unreadable {
                if batch < 512 { break }
                continue
            }
            // Rows after `after` could not be read: skip ahead, further each time.
            if batch == 0 {
                after += skip
                skip *= 2
            }
        }
        if let evictions = try? old.integer("SELECT value FROM counters WHERE name = 'evictions'"), evictions > 0,
           let statement = try? new.statement("INSERT OR REPLACE INTO counters (name, value) VALUES ('evictions', ?)") {
            statement.bind(1, evictions)
            try? statement.run()
        }
        return copied
    }

    static func fileSize(_ path: String) -> Int64? {
        var info = stat()
        return stat(path, &info) == 0 ? Int64(info.st_size) : nil
    }
}
