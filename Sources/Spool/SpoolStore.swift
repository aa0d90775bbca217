import CSQLite
import Glibc
import TrackingCore

/// The spool's synchronous core: one database connection and the in-memory bookkeeping.
/// Used only from the spool's serial queue.
final class SpoolStore {
    let configuration: Spool.Configuration
    let path: String
    var database: Database
    let events: @Sendable (SpoolEvent) -> Void
    let reserve: DiskReserve
    var queued = 0
    private(set) var inFlight = Set<Int64>()
    /// Queued and not in flight.
    var unsent: Int { max(0, queued - inFlight.count) }
    var evictions: Int64 = 0
    /// Evictions counted in memory that the database's counter does not have yet (a full disk).
    var unsavedEvictions: Int64 = 0
    /// Positions that found no room on a full disk, oldest first: stored as soon as there is room.
    var held: [(location: Location, kept: KeepTrigger?)] = []
    /// Acknowledged rows whose deletion found no room yet; kept in flight so none is sent twice.
    var unwrittenAcks: [Int64] = []
    /// Positions that could not be stored when they came (a full disk), since the spool opened.
    var storeFailures: Int64 = 0
    /// How many of the held positions (from the oldest) `storeFailures` has counted.
    var heldCounted = 0
    /// Whether the operator has been told that positions wait in memory.
    var holdingReported = false
    // Built once: the statement cache is keyed by the text, and these run for every position.
    private static let insertSQL =
        "INSERT INTO positions (\(SpoolSchema.selectColumns)) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)"
    private static let peekSQL = "SELECT id, \(SpoolSchema.selectColumns) FROM positions ORDER BY id LIMIT ?"
    private static let newestSQL = "SELECT id, \(SpoolSchema.selectColumns) FROM positions ORDER BY id DESC LIMIT ?"
    private var appendsSinceSizeCheck = 0

    init(configuration: Spool.Configuration, events: @escaping @Sendable (SpoolEvent) -> Void) throws(SpoolError) {
        self.configuration = configuration
        self.events = events
        path = configuration.directory + "/" + configuration.fileName
        try Spool.makeDirectory(configuration.directory)
        reserve = DiskReserve(directory: configuration.directory, fileName: configuration.fileName + ".reserve")
        if let reason = SpoolSalvage.truncatedBesideLog(path) {
            // SQLite would start an empty database and delete the log: keep both for inspection.
            let movedTo = try SpoolSalvage.moveAside(path)
            database = try Self.openAndCheck(path)
            events(.damagedFileReplaced(path: path, movedTo: movedTo, reason: reason, salvaged: nil))
        } else {
            do {
                database = try Self.openAndCheck(path)
            } catch let error where Self.isCorruption(error) {
                let movedTo = try SpoolSalvage.moveAside(path)
                database = try Self.openAndCheck(path)
                let salvaged = Self.salvage(from: movedTo, into: database)
                events(.damagedFileReplaced(path: path, movedTo: movedTo, reason: error.description, salvaged: salvaged))
            }
        }
        queued = Int(try database.integer("SELECT count(*) FROM positions") ?? 0)
        evictions = try database.integer("SELECT value FROM counters WHERE name = 'evictions'") ?? 0
        if let pages = configuration.maxPageCount {
            _ = try database.integer("PRAGMA max_page_count = \(pages)")
        }
        reserve.replenish()
    }

    // MARK: - Operations

    func append(_ location: Location, kept: KeepTrigger?) throws(SpoolError) {
        if queued >= configuration.maxRows { try evict(.maxRows) }
        appendsSinceSizeCheck += 1
        if appendsSinceSizeCheck >= 16 || queued < 64 {
            appendsSinceSizeCheck = 0
            if let maxBytes = configuration.maxBytes, try usedBytes() >= maxBytes { try evict(.maxBytes) }
            makeRoomAhead()
        }
        held.append((location, kept))
        try storeHeld()
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

    func insert(_ l: Location, kept: KeepTrigger?) throws(SpoolError) {
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

    /// The oldest positions not in flight, up to `limit`. A row that cannot be read back as a
    /// position (a value no version of gpstrackd writes) goes to the dead letters, so that it
    /// never blocks the rows behind it.
    func peek(limit: Int) throws(SpoolError) -> [SpooledPosition] {
        try take(limit: limit, sql: Self.peekSQL)
    }

    /// The last-appended `limit` rows not in flight whose fix time is after `time`, returned
    /// oldest first. By row order, not by a row id remembered: SQLite gives a new row the
    /// largest id plus one, so ids come back once the newest rows are deleted.
    func peekNewest(limit: Int, after time: FixTime?) throws(SpoolError) -> [SpooledPosition] {
        try take(limit: limit, sql: Self.newestSQL) { row in time.map { row.location.time > $0 } ?? true }.reversed()
    }

    /// Rows in `sql`'s order not in flight, up to `limit`, while `taking` says so; they go in
    /// flight. Undecodable rows met on the way go to the dead letters.
    private func take(limit: Int, sql: String, while taking: (SpooledPosition) -> Bool = { _ in true }) throws(SpoolError) -> [SpooledPosition] {
        guard limit > 0 else { return [] }
        try? storeHeld()
        var out: [SpooledPosition] = []
        while true {
            let statement = try database.statement(sql)
            statement.bind(1, Int64(limit + inFlight.count))
            var undecodable: [Int64] = []
            var rows = 0
            do {
                defer { statement.reset() }
                while out.count < limit, try statement.step() {
                    rows += 1
                    let id = statement.int64(0)
                    guard !inFlight.contains(id) else { continue }
                    guard let position = Self.position(from: statement, id: id) else {
                        undecodable.append(id)
                        continue
                    }
                    guard taking(position) else { break }
                    out.append(position)
                    inFlight.insert(id)
                }
            }
            guard !undecodable.isEmpty else { break }
            try reject(undecodable, code: "Undecodable", message: "the spool row is not a valid position (mode, coordinates or time out of range)",
                       at: SystemClock.now())
            events(.undecodableRowsSetAside(count: undecodable.count))
            if out.count >= limit || rows == 0 { break }
        }
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
    /// newest acknowledgements (the position is then uploaded twice), never a position. On a full
    /// disk the deletion waits in memory (the rows stay in flight, so none is sent again).
    func ack(_ ids: [Int64]) throws(SpoolError) {
        guard !ids.isEmpty else { return }
        unwrittenAcks += ids
        writeAcks()
    }

    /// Deletes the acknowledged rows not yet deleted; on a full disk they wait for room.
    func writeAcks() {
        guard !unwrittenAcks.isEmpty else { return }
        let ids = unwrittenAcks
        let deleted: Int
        do {
            deleted = try withRoom(thinning: false) { () throws(SpoolError) -> Int in
                try database.run("PRAGMA synchronous = NORMAL")
                defer { try? database.run("PRAGMA synchronous = FULL") }
                return try database.transaction { () throws(SpoolError) -> Int in
                    let statement = try database.statement("DELETE FROM positions WHERE id = ?")
                    var deleted = 0
                    for id in ids {
                        statement.bind(1, id)
                        try statement.run()
                        deleted += database.changes
                    }
                    return deleted
                }
            }
        } catch {
            return
        }
        unwrittenAcks.removeFirst(ids.count)
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

    /// The newest position queued (held in memory or stored).
    func newest() throws(SpoolError) -> Location? {
        if let last = held.last { return last.location }
        let statement = try database.statement("SELECT id, \(SpoolSchema.selectColumns) FROM positions ORDER BY id DESC LIMIT 1")
        defer { statement.reset() }
        guard try statement.step() else { return nil }
        return Self.position(from: statement, id: statement.int64(0))?.location
    }

    /// Also the spool's periodic chance to store what a full disk held back.
    func statistics() throws(SpoolError) -> SpoolStatistics {
        try? storeHeld()
        let oldest = try database.integer("SELECT fix_time FROM positions ORDER BY id LIMIT 1")
        let newest = try database.integer("SELECT fix_time FROM positions ORDER BY id DESC LIMIT 1")
        let dead = try database.integer("SELECT count(*) FROM dead_letters") ?? 0
        let size = { (file: String) in SpoolSalvage.fileSize(file) ?? 0 }
        return SpoolStatistics(
            queued: queued + held.count, inFlight: inFlight.count,
            oldest: oldest.map(FixTime.init(nanosecondsSince1970:)), newest: held.last?.location.time ?? newest.map(FixTime.init(nanosecondsSince1970:)),
            deadLetters: Int(dead), fileBytes: size(path) + size(path + "-wal"), evictions: evictions,
            heldInMemory: held.count, storeFailures: storeFailures)
    }
}
