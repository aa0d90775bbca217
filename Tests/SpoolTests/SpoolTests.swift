import CSQLite
import Foundation
@testable import Spool
import Synchronization
import Testing
import TrackingCore

@Suite struct SpoolTests {
    static let start = FixTime(iso8601: "2026-11-30T08:00:00Z")!

    static func location(_ n: Int, full: Bool = true) -> Location {
        Location(
            time: start.adding(seconds: Double(n)), mode: n % 2 == 0 ? .threeD : .twoD,
            latitude: 52.5 + Double(n) * 1e-5, longitude: 13.4 - Double(n) * 1e-5,
            altitudeMSL: full ? 34.5 : nil, altitudeHAE: full ? 79.0 : nil, course: full ? Double(n % 360) : nil,
            speed: full ? 12.25 : nil, climb: full ? -0.5 : nil, heading: full ? 90.5 : nil,
            horizontalAccuracy: full ? 4.5 : nil, verticalAccuracy: full ? 7.25 : nil,
            speedAccuracy: full ? 0.3 : nil, courseAccuracy: full ? 2 : nil, device: full ? "/dev/ttyACM0" : nil)!
    }

    /// Checkpoints the log into the file from another connection (a spool that is open then
    /// re-reads its pages), then overwrites `count` pages from page `from`, as a failing disk does.
    static func damagePages(in directory: String, from: Int, count: Int) throws {
        try checkpointFromOutside(directory)
        let handle = try FileHandle(forUpdating: URL(fileURLWithPath: directory + "/spool.db"))
        try handle.seek(toOffset: UInt64(4096 * from))
        try handle.write(contentsOf: Data(repeating: 0xA5, count: 4096 * count))
        try handle.close()
    }

    /// Copies the log into the database file from another connection and cuts the log to nothing.
    static func checkpointFromOutside(_ directory: String) throws {
        let database = try Database(path: directory + "/spool.db")
        try database.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    }

    /// Hands out and acknowledges everything queued, as the uploader does; the fix times' seconds.
    static func drainSeconds(_ spool: Spool, batches: Int = .max) async throws -> [Int] {
        var delivered: [Int] = []
        for _ in 0..<batches {
            let rows = try await spool.peek(limit: 10)
            if rows.isEmpty { break }
            try await spool.ack(rows.map(\.id))
            delivered += rows.map { Int(start.seconds(to: $0.location.time)) }
        }
        return delivered
    }

    static func directory() -> String {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("gpstrackd-spool-\(UUID().uuidString.prefix(8))")
        return url.path
    }

    @Test func appendsAndHandsOutTheOldestFirst() async throws {
        let spool = try await Spool.open(.init(directory: Self.directory()))
        for n in 0..<25 { try await spool.append(Self.location(n, full: n % 3 != 0), kept: n == 0 ? .first : .deviation) }
        let first = try await spool.peek(limit: 10)
        #expect(first.map(\.location) == (0..<10).map { Self.location($0, full: $0 % 3 != 0) })
        #expect(first.first?.kept == .first)
        #expect(first.last?.kept == .deviation)
        let second = try await spool.peek(limit: 10)
        #expect(second.map(\.location.time) == (10..<20).map { Self.location($0).time }, "rows in flight are not handed out twice")
        try await spool.ack(first.map(\.id))
        await spool.release(second.map(\.id))
        let stats = try await spool.statistics()
        #expect(stats.queued == 15)
        #expect(stats.inFlight == 0)
        #expect(stats.oldest == Self.location(10).time)
        #expect(stats.newest == Self.location(24).time)
        #expect(stats.fileBytes > 0)
        let again = try await spool.peek(limit: 100)
        #expect(again.map(\.location.time) == (10..<25).map { Self.location($0).time }, "released rows come back in order")
    }

    @Test func handsOutTheNewestAheadOfTheBacklogOldestFirstAmongThem() async throws {
        let spool = try await Spool.open(.init(directory: Self.directory()))
        for n in 0..<30 { try await spool.append(Self.location(n)) }
        let live = try await spool.peekNewest(limit: 4, after: nil)
        #expect(live.map(\.location.time) == (26..<30).map { Self.location($0).time }, "the newest four, oldest first")
        let backlog = try await spool.peek(limit: 10)
        #expect(backlog.map(\.location.time) == (0..<10).map { Self.location($0).time })
        let more = try await spool.peekNewest(limit: 10, after: Self.location(19).time)
        #expect(more.map(\.location.time) == (20..<26).map { Self.location($0).time }, "after the time asked, none in flight twice")
        #expect(try await spool.peekNewest(limit: 10, after: Self.location(29).time).isEmpty, "nothing after the newest")
        // The newest rows acknowledged: SQLite hands their ids out again; the time still tells.
        try await spool.ack(live.map(\.id) + more.map(\.id))
        for n in 30..<33 { try await spool.append(Self.location(n)) }
        let next = try await spool.peekNewest(limit: 10, after: Self.location(29).time)
        #expect(next.map(\.location.time) == (30..<33).map { Self.location($0).time })
        #expect(spool.unsent == 10, "rows 10-19: 33 appended, 10 acknowledged, 13 in flight")
    }

    @Test func appendsHandedOverWithoutWaitingAreStoredInOrderBeforeLaterCalls() async throws {
        let spool = try await Spool.open(.init(directory: Self.directory()))
        let done = Mutex<[SpoolError?]>([])
        for n in 0..<20 {
            spool.append(Self.location(n), kept: n == 0 ? .first : .distance) { error in done.withLock { $0.append(error) } }
        }
        await spool.flush()
        #expect(done.withLock { $0.count } == 20)
        #expect(done.withLock { $0.allSatisfy { $0 == nil } })
        #expect(spool.unsent == 20)
        let rows = try await spool.peek(limit: 20)
        #expect(rows.map(\.location) == (0..<20).map { Self.location($0) })
        #expect(rows.first?.kept == .first && rows.last?.kept == .distance)
    }

    @Test func countsWhatIsQueuedAndNotHandedOut() async throws {
        let directory = Self.directory()
        do {
            let spool = try await Spool.open(.init(directory: directory))
            #expect(spool.unsent == 0)
            for n in 0..<12 { try await spool.append(Self.location(n)) }
            #expect(spool.unsent == 12)
            let batch = try await spool.peek(limit: 10)
            #expect(spool.unsent == 2, "rows in flight are not counted")
            await spool.release(batch[5...].map(\.id))
            #expect(spool.unsent == 7, "released rows count again")
            try await spool.ack(batch[..<5].map(\.id))
            #expect(spool.unsent == 7)
            try await spool.reject(try await spool.peek(limit: 3).map(\.id), code: "ValidationException", message: "bad")
            #expect(spool.unsent == 4)
        }
        let reopened = try await Spool.open(.init(directory: directory))
        #expect(reopened.unsent == 4, "counted from the database on open")
    }

    @Test func keepsEverythingAcrossReopen() async throws {
        let directory = Self.directory()
        do {
            let spool = try await Spool.open(.init(directory: directory))
            for n in 0..<50 { try await spool.append(Self.location(n)) }
            try await spool.ack(try await spool.peek(limit: 5).map(\.id))
        }
        let reopened = try await Spool.open(.init(directory: directory))
        let rows = try await reopened.peek(limit: 100)
        #expect(rows.map(\.location) == (5..<50).map { Self.location($0) })
        #expect(try await reopened.statistics().queued == 45)
    }

    @Test func rejectedRowsGoToTheDeadLetterTable() async throws {
        let spool = try await Spool.open(.init(directory: Self.directory()))
        for n in 0..<5 { try await spool.append(Self.location(n)) }
        let rows = try await spool.peek(limit: 5)
        let when = FixTime(iso8601: "2026-11-30T09:00:00Z")!
        try await spool.reject([rows[1].id, rows[3].id], code: "ValidationError", message: "SampleTime in the future", at: when)
        try await spool.ack([rows[0].id, rows[2].id, rows[4].id])
        let dead = try await spool.deadLetters()
        #expect(dead.map(\.position.location) == [Self.location(1), Self.location(3)])
        #expect(dead.allSatisfy { $0.code == "ValidationError" && $0.message == "SampleTime in the future" && $0.rejectedAt == when })
        let stats = try await spool.statistics()
        #expect(stats.deadLetters == 2)
        #expect(stats.queued == 0)
        #expect(stats.oldest == nil)
    }

    @Test func migratesAVersion1DatabaseKeepingItsRows() async throws {
        let directory = Self.directory()
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        do {
            let database = try Database(path: directory + "/spool.db")
            try SpoolSchema.migrate(database, to: 1)
            try database.execute("""
                INSERT INTO positions (fix_time, mode, latitude, longitude, speed) VALUES (\(Self.start.nanosecondsSince1970), 3, 52.5, 13.4, 4.5);
                INSERT INTO dead_letters (fix_time, mode, latitude, longitude, code, message, rejected_at) VALUES (1, 2, 1.0, 2.0, 'X', 'y', 5);
                """)
            #expect(try database.integer("PRAGMA user_version") == 1)
        }
        let spool = try await Spool.open(.init(directory: directory))
        try await spool.append(Self.location(1), kept: .heartbeat)
        let rows = try await spool.peek(limit: 10)
        #expect(rows.count == 2)
        #expect(rows[0].location.time == Self.start && rows[0].location.speed == 4.5 && rows[0].kept == nil)
        #expect(rows[1].kept == .heartbeat)
        #expect(try await spool.statistics().deadLetters == 1)
        let database = try Database(path: directory + "/spool.db")
        #expect(try database.integer("PRAGMA user_version") == Int64(SpoolSchema.currentVersion))
    }

    @Test func refusesASpoolFromANewerVersion() async throws {
        let directory = Self.directory()
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        do {
            let database = try Database(path: directory + "/spool.db")
            try database.execute("PRAGMA user_version = 99")
        }
        await #expect(throws: SpoolError.self) { try await Spool.open(.init(directory: directory)) }
        let files = try FileManager.default.contentsOfDirectory(atPath: directory)
        #expect(files.contains("spool.db"), "a newer spool is left alone, not moved aside")
    }

    @Test func thinsTheOldestTenthWhenFull() async throws {
        let events = EventLog()
        let spool = try await Spool.open(.init(directory: Self.directory(), maxRows: 100)) { events.append($0) }
        for n in 0..<101 { try await spool.append(Self.location(n)) }
        let stats = try await spool.statistics()
        #expect(stats.evictions == 5)
        #expect(stats.queued == 96)
        #expect(events.all == [.evicted(count: 5, reason: .maxRows)])
        let times = try await spool.peek(limit: 200).map { Int(Self.start.seconds(to: $0.location.time)) }
        #expect(Array(times.prefix(6)) == [0, 2, 4, 6, 8, 10], "every other row of the oldest ten is gone")
        #expect(times.last == 100, "the newest position is kept")
    }

    @Test func staysWithinTheByteCap() async throws {
        let spool = try await Spool.open(.init(directory: Self.directory(), maxBytes: 256 * 1024))
        for n in 0..<6000 { try await spool.append(Self.location(n)) }
        let stats = try await spool.statistics()
        #expect(stats.evictions > 0)
        #expect(stats.queued < 6000)
        let rows = try await spool.peek(limit: 10_000)
        #expect(rows.last?.location.time == Self.location(5999).time)
    }

    @Test func aFullDiskEvictsInsteadOfFailing() async throws {
        let events = EventLog()
        var configuration = Spool.Configuration(directory: Self.directory())
        configuration.maxPageCount = 40
        let spool = try await Spool.open(configuration) { events.append($0) }
        for n in 0..<3000 { try await spool.append(Self.location(n)) }
        let stats = try await spool.statistics()
        print("disk full: queued \(stats.queued), evictions \(stats.evictions), events \(events.all.count)")
        #expect(stats.evictions > 0)
        #expect(stats.queued > 500, "thinning keeps most of the track")
        #expect(events.all.contains { if case .evicted(_, .diskFull) = $0 { true } else { false } })
        #expect(try await spool.peek(limit: 10_000).last?.location.time == Self.location(2999).time)
    }

    @Test func movesAGarbageFileAsideAndStartsAgain() async throws {
        let directory = Self.directory()
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        let garbage = Data((0..<10_000).map { UInt8(truncatingIfNeeded: $0 &* 7) })
        try garbage.write(to: URL(fileURLWithPath: directory + "/spool.db"))
        let events = EventLog()
        let spool = try await Spool.open(.init(directory: directory)) { events.append($0) }
        try await spool.append(Self.location(1))
        #expect(try await spool.statistics().queued == 1)
        let files = try FileManager.default.contentsOfDirectory(atPath: directory)
        let aside = try #require(files.first { $0.hasPrefix("spool.db.corrupt-") })
        #expect(try Data(contentsOf: URL(fileURLWithPath: directory + "/" + aside)) == garbage, "the user's file is kept as it was")
        guard case let .damagedFileReplaced(path, movedTo, _, _) = events.all.first else {
            Issue.record("no event: \(events.all)")
            return
        }
        #expect(path == directory + "/spool.db")
        #expect(movedTo == directory + "/" + aside)
    }

    @Test func movesADamagedDatabaseAside() async throws {
        let directory = Self.directory()
        do {
            let spool = try await Spool.open(.init(directory: directory))
            for n in 0..<3000 { try await spool.append(Self.location(n)) }
        }
        try Self.damagePages(in: directory, from: 5, count: 20)
        let events = EventLog()
        let spool = try await Spool.open(.init(directory: directory)) { events.append($0) }
        guard case let .damagedFileReplaced(_, _, _, salvaged?) = events.all.first else {
            Issue.record("no event: \(events.all)")
            return
        }
        print("damaged at start: \(salvaged) of 3000 rows salvaged")
        #expect(salvaged > 1000 && salvaged < 3000, "the readable rows are copied, the damaged ones lost")
        #expect(try await spool.statistics().queued == salvaged)
        let rows = try await spool.peek(limit: 5000)
        #expect(rows.count == salvaged)
        #expect(rows.last?.location == Self.location(2999), "rows after the damaged pages are salvaged too")
        #expect(events.all.count == 1)
        try await spool.append(Self.location(1))
        #expect(try FileManager.default.contentsOfDirectory(atPath: directory).contains { $0.hasPrefix("spool.db.corrupt-") })
    }

    @Test func reportsAnUnusableDirectory() async {
        await #expect(throws: SpoolError.self) {
            try await Spool.open(.init(directory: "/proc/gpstrackd-cannot-exist"))
        }
    }

    @Test func defaultDirectoryFollowsSystemd() {
        #expect(Spool.Configuration.defaultDirectory(environment: ["STATE_DIRECTORY": "/var/lib/gpstrackd:/var/lib/other"]) == "/var/lib/gpstrackd")
        #expect(Spool.Configuration.defaultDirectory(environment: [:]) == "/var/lib/gpstrackd")
    }
}

/// Collects spool events from the spool's queue.
final class EventLog: @unchecked Sendable {
    private let lock = NSLock()
    private var events: [SpoolEvent] = []
    func append(_ event: SpoolEvent) { lock.withLock { events.append(event) } }
    var all: [SpoolEvent] { lock.withLock { events } }
}

@Suite struct SpoolEventTests {
    @Test func sayWhatHappenedAndWhere() {
        let corrupt = SpoolEvent.damagedFileReplaced(
            path: "/var/lib/gpstrackd/spool.db", movedTo: "/var/lib/gpstrackd/spool.db.corrupt-x", reason: "file is not a database", salvaged: 904)
        #expect(corrupt.isError)
        #expect(corrupt.description.contains("/var/lib/gpstrackd/spool.db.corrupt-x"))
        #expect(corrupt.description.contains("copied the 904 position(s)"))
        let evicted = SpoolEvent.evicted(count: 5, reason: .maxRows)
        #expect(!evicted.isError)
        #expect(evicted.description == "spool full (spool-max-rows): thinned the oldest positions, dropped 5")
    }
}
