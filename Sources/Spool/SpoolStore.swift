import CSQLite
import Glibc
import TrackingCore

/// The spool's synchronous core: one database connection and the in-memory bookkeeping.
/// Used only from the spool's serial queue.
final class SpoolStore {
    let configuration: Spool.Configuration
    let path: String
    private var database: Database
    private let events: @Sendable (SpoolEvent) -> Void
    private(set) var queued = 0
    private(set) var inFlight = Set<Int64>()
    /// Queued and not in flight.
    var unsent: Int { max(0, queued - inFlight.count) }
    private(set) var evictions: Int64 = 0
    // Built once: the statement cache is keyed by the text, and these run for every position.
    private static let insertSQL =
        "INSERT INTO positions (\(SpoolSchema.selectColumns)) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)"
    private static let peekSQL = "SELECT id, \(SpoolSchema.selectColumns) FROM positions ORDER BY id LIMIT ?"
    private var appendsSinceSizeCheck = 0

    init(configuration: Spool.Configuration, events: @escaping @Sendable (SpoolEvent) -> Void) throws(SpoolError) {
        self.configuration = configuration
        self.events = events
        path = configuration.directory + "/" + configuration.fileName
        try Self.makeDirectory(configuration.directory)
        do {
            database = try Self.openAndCheck(path)
        } catch let error where Self.isCorruption(error) {
            let movedTo = try Self.moveAside(path)
            events(.corruptFileMovedAside(path: path, movedTo: movedTo, reason: error.description))
            database = try Self.openAndCheck(path)
        }
        queued = Int(try database.integer("SELECT count(*) FROM positions") ?? 0)
        evictions = try database.integer("SELECT value FROM counters WHERE name = 'evictions'") ?? 0
        if let pages = configuration.maxPageCount {
            _ = try database.integer("PRAGMA max_page_count = \(pages)")
        }
    }

    /// Opens the file, sets the durability pragmas, migrates, and reads it once end to end.
    private static func openAndCheck(_ path: String) throws(SpoolError) -> Database {
        let database = try Database(path: path)
        // WAL: appends write a frame at the end of the log; readers never block the writer.
        try database.execute("PRAGMA journal_mode = WAL")
        // FULL: every commit fsyncs the log before it returns (see Spool's durability contract).
        try database.execute("PRAGMA synchronous = FULL")
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

    /// Renames the database (and its log files) to `spool.db.corrupt-<UTC time>`; never deletes.
    private static func moveAside(_ path: String) throws(SpoolError) -> String {
        let stamp = String(SystemClock.now().iso8601.filter { $0 != ":" })
        let target = "\(path).corrupt-\(stamp)"
        for suffix in ["", "-wal", "-shm"] where access(path + suffix, F_OK) == 0 {
            if rename(path + suffix, target + suffix) != 0 {
                throw .directory(path: path, reason: "cannot move the unreadable spool aside: \(String(cString: strerror(errno)))")
            }
        }
        return target
    }

    private static func makeDirectory(_ directory: String) throws(SpoolError) {
        var built = directory.hasPrefix("/") ? "" : "."
        for part in directory.split(separator: "/") {
            built += "/" + part
            if mkdir(built, 0o750) != 0 && errno != EEXIST {
                throw .directory(path: directory, reason: String(cString: strerror(errno)))
            }
        }
        if access(directory, W_OK) != 0 {
            throw .directory(path: directory, reason: String(cString: strerror(errno)))
        }
    }

    // MARK: - Operations

    func append(_ location: Location, kept: KeepTrigger?) throws(SpoolError) {
        if queued >= configuration.maxRows { try evict(.maxRows) }
        appendsSinceSizeCheck += 1
        if let maxBytes = configuration.maxBytes, appendsSinceSizeCheck >= 64 || queued < 64 {
            appendsSinceSizeCheck = 0
            if try usedBytes() >= maxBytes { try evict(.maxBytes) }
        }
        // A full disk: thin the oldest positions until the new one fits. Thinning leaves pages
        // half full; SQLite merges such siblings and frees pages, so a few rounds make room.
        var attempts = 0
        while true {
            do {
                try insert(location, kept: kept)
                break
            } catch let error where error.primaryCode == SQLITE_FULL {
                attempts += 1
                guard attempts <= 8, queued > 1 else { throw .diskFull(path: path) }
                try evict(.diskFull)
            }
        }
        queued += 1
    }

    /// Appends many positions in one durable transaction (a flush on shutdown, a bulk import).
    func append(contentsOf locations: [Location]) throws(SpoolError) {
        guard !locations.isEmpty else { return }
        if queued + locations.count > configuration.maxRows { try evict(.maxRows) }
        try database.transaction { () throws(SpoolError) in
            for location in locations { try insert(location, kept: nil) }
        }
        queued += locations.count
    }

    /// SQLite's `PRAGMA integrity_check`: "ok", or the problems found.
    func integrityCheck() throws(SpoolError) -> String {
        let statement = try database.statement("PRAGMA integrity_check")
        defer { statement.reset() }
        var lines: [String] = []
        while try statement.step() { lines.append(statement.string(0) ?? "") }
        return lines.joined(separator: "\n")
    }

    private func insert(_ l: Location, kept: KeepTrigger?) throws(SpoolError) {
        let statement = try database.statement(Self.insertSQL)
        statement.bind(1, l.time.nanosecondsSince1970)
        statement.bind(2, Int64(l.mode.rawValue))
        statement.bind(3, l.latitude)
        statement.bind(4, l.longitude)
        statement.bind(5, l.altitudeMSL)
        statement.bind(6, l.altitudeHAE)
        statement.bind(7, l.course)
        statement.bind(8, l.speed)
        statement.bind(9, l.climb)
        statement.bind(10, l.heading)
        statement.bind(11, l.horizontalAccuracy)
        statement.bind(12, l.verticalAccuracy)
        statement.bind(13, l.speedAccuracy)
        statement.bind(14, l.courseAccuracy)
        statement.bind(15, l.device)
        statement.bind(16, kept?.rawValue)
        try statement.run()
    }

    func peek(limit: Int) throws(SpoolError) -> [SpooledPosition] {
        guard limit > 0 else { return [] }
        let statement = try database.statement(Self.peekSQL)
        statement.bind(1, Int64(limit + inFlight.count))
        defer { statement.reset() }
        var out: [SpooledPosition] = []
        while out.count < limit, try statement.step() {
            let id = statement.int64(0)
            guard !inFlight.contains(id), let position = Self.position(from: statement, id: id) else { continue }
            out.append(position)
        }
        for position in out { inFlight.insert(position.id) }
        return out
    }

    /// Reads a position from the current row (`id` then `SpoolSchema.selectColumns`, from column `offset`).
    static func position(from s: Statement, id: Int64, offset: Int32 = 1) -> SpooledPosition? {
        let c = offset
        guard let mode = FixMode(gpsdMode: Int(s.int64(c + 1))),
              let location = Location(
                time: FixTime(nanosecondsSince1970: s.int64(c)), mode: mode,
                latitude: s.double(c + 2) ?? .nan, longitude: s.double(c + 3) ?? .nan,
                altitudeMSL: s.double(c + 4), altitudeHAE: s.double(c + 5), course: s.double(c + 6),
                speed: s.double(c + 7), climb: s.double(c + 8), heading: s.double(c + 9),
                horizontalAccuracy: s.double(c + 10), verticalAccuracy: s.double(c + 11),
                speedAccuracy: s.double(c + 12), courseAccuracy: s.double(c + 13), device: s.string(c + 14))
        else { return nil }
        return SpooledPosition(id: id, location: location, kept: s.string(c + 15).flatMap(KeepTrigger.init(rawValue:)))
    }

    /// Deletes acknowledged rows. Committed with `synchronous = NORMAL`: a power cut may forget the
    /// newest acknowledgements (the position is then uploaded twice), never a position.
    func ack(_ ids: [Int64]) throws(SpoolError) {
        guard !ids.isEmpty else { return }
        try database.run("PRAGMA synchronous = NORMAL")
        defer { try? database.run("PRAGMA synchronous = FULL") }
        let deleted = try database.transaction { () throws(SpoolError) -> Int in
            let statement = try database.statement("DELETE FROM positions WHERE id = ?")
            var deleted = 0
            for id in ids {
                statement.bind(1, id)
                try statement.run()
                deleted += database.changes
            }
            return deleted
        }
        queued -= deleted
        for id in ids { inFlight.remove(id) }
    }

    /// Puts rows handed out by `peek` back in the queue (the upload failed; try again later).
    func release(_ ids: [Int64]) {
        for id in ids { inFlight.remove(id) }
    }

    /// Moves rows to the dead-letter table with the tracker's code and message.
    func reject(_ ids: [Int64], code: String, message: String, at time: FixTime) throws(SpoolError) {
        guard !ids.isEmpty else { return }
        let moved = try database.transaction { () throws(SpoolError) -> Int in
            let copy = try database.statement("""
                INSERT INTO dead_letters (\(SpoolSchema.selectColumns), code, message, rejected_at)
                SELECT \(SpoolSchema.selectColumns), ?, ?, ? FROM positions WHERE id = ?
                """)
            let delete = try database.statement("DELETE FROM positions WHERE id = ?")
            var moved = 0
            for id in ids {
                copy.bind(1, code)
                copy.bind(2, message)
                copy.bind(3, time.nanosecondsSince1970)
                copy.bind(4, id)
                try copy.run()
                delete.bind(1, id)
                try delete.run()
                moved += database.changes
            }
            return moved
        }
        queued -= moved
        for id in ids { inFlight.remove(id) }
    }

    func deadLetters(limit: Int) throws(SpoolError) -> [DeadLetter] {
        let statement = try database.statement(
            "SELECT id, \(SpoolSchema.selectColumns), code, message, rejected_at FROM dead_letters ORDER BY id LIMIT ?")
        statement.bind(1, Int64(limit))
        defer { statement.reset() }
        var out: [DeadLetter] = []
        while try statement.step() {
            guard let position = Self.position(from: statement, id: statement.int64(0)) else { continue }
            out.append(DeadLetter(
                position: position, code: statement.string(17) ?? "", message: statement.string(18) ?? "",
                rejectedAt: FixTime(nanosecondsSince1970: statement.int64(19))))
        }
        return out
    }

    func statistics() throws(SpoolError) -> SpoolStatistics {
        let oldest = try database.integer("SELECT fix_time FROM positions ORDER BY id LIMIT 1")
        let newest = try database.integer("SELECT fix_time FROM positions ORDER BY id DESC LIMIT 1")
        let dead = try database.integer("SELECT count(*) FROM dead_letters") ?? 0
        return SpoolStatistics(
            queued: queued, inFlight: inFlight.count,
            oldest: oldest.map(FixTime.init(nanosecondsSince1970:)), newest: newest.map(FixTime.init(nanosecondsSince1970:)),
            deadLetters: Int(dead), fileBytes: Self.fileSize(path) + Self.fileSize(path + "-wal"), evictions: evictions)
    }

    /// Pages in use (not on the free list), in bytes: what `spool-max-bytes` limits.
    func usedBytes() throws(SpoolError) -> Int64 {
        let pages = try database.integer("PRAGMA page_count") ?? 0
        let free = try database.integer("PRAGMA freelist_count") ?? 0
        let size = try database.integer("PRAGMA page_size") ?? 4096
        return (pages - free) * size
    }

    /// Thins the oldest tenth of the queue by dropping every other row: the recent track matters
    /// most, and the old track keeps its shape at half the density.
    func evict(_ reason: SpoolEvent.EvictionReason) throws(SpoolError) {
        let oldest = max(2, queued / 10)
        let removed = try database.transaction { () throws(SpoolError) -> Int in
            let statement = try database.statement("""
                DELETE FROM positions WHERE id IN (
                    SELECT id FROM (SELECT id, row_number() OVER (ORDER BY id) AS n
                                    FROM (SELECT id FROM positions ORDER BY id LIMIT ?))
                    WHERE n % 2 = 0)
                """)
            statement.bind(1, Int64(oldest))
            try statement.run()
            let removed = database.changes
            let counter = try database.statement("""
                INSERT INTO counters (name, value) VALUES ('evictions', ?)
                ON CONFLICT(name) DO UPDATE SET value = value + excluded.value
                """)
            counter.bind(1, Int64(removed))
            try counter.run()
            return removed
        }
        queued -= removed
        evictions += Int64(removed)
        events(.evicted(count: removed, reason: reason))
    }

    private static func fileSize(_ path: String) -> Int64 {
        var info = stat()
        return stat(path, &info) == 0 ? Int64(info.st_size) : 0
    }
}
