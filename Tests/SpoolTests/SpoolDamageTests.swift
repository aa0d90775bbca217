import CSQLite
import Foundation
@testable import Spool
import Testing
import TestSupport
import TrackingCore

/// Damage the spool meets on a box that runs for months: rows it cannot read back, a file damaged
/// while it runs, a truncated file beside its log, a file it may not write.
@Suite struct SpoolDamageTests {
    typealias Fixture = SpoolTests

    /// Drains the spool as the uploader does; returns every position handed out.
    static func drain(_ spool: Spool) async throws -> [SpooledPosition] {
        var all: [SpooledPosition] = []
        while true {
            let rows = try await spool.peek(limit: 10)
            if rows.isEmpty { return all }
            try await spool.ack(rows.map(\.id))
            all += rows
        }
    }

    @Test func rowsThatCannotBeReadBackAreDeadLetteredAndTheRestFlows() async throws {
        let directory = Fixture.directory()
        _ = try await Spool.open(.init(directory: directory))
        // Twenty impossible rows at the head of the queue, as another program or a bit flip leaves them.
        do {
            let database = try Database(path: directory + "/spool.db")
            for n in 0..<20 {
                try database.execute("""
                    INSERT INTO positions (fix_time, mode, latitude, longitude) VALUES (\(1_700_000_000_000_000_000 + n), \(n % 2 == 0 ? 9 : 3), \(n % 2 == 0 ? 52.5 : 1e9), 13.4)
                    """)
            }
        }
        let events = EventLog()
        let spool = try await Spool.open(.init(directory: directory)) { events.append($0) }
        for n in 0..<980 { try await spool.append(Fixture.location(n)) }
        let delivered = try await Self.drain(spool)
        #expect(delivered.map(\.location) == (0..<980).map { Fixture.location($0) })
        let stats = try await spool.statistics()
        #expect(stats.queued == 0)
        #expect(stats.deadLetters == 20)
        #expect(events.all.contains { if case .undecodableRowsSetAside = $0 { true } else { false } })
        let codes = try Database(path: directory + "/spool.db").integer("SELECT count(*) FROM dead_letters WHERE code = 'Undecodable'")
        #expect(codes == 20)
    }

    @Test func aFileDamagedWhileRunningIsMovedAsideAndItsReadableRowsFlowOn() async throws {
        let directory = Fixture.directory()
        let events = EventLog()
        let spool = try await Spool.open(.init(directory: directory)) { events.append($0) }
        for n in 0..<5000 { try await spool.append(Fixture.location(n)) }
        try Fixture.damagePages(in: directory, from: 30, count: 10)
        let delivered = try await Self.drain(spool)
        guard case let .damagedFileReplaced(path, movedTo, _, salvaged?) = events.all.first(where: {
            if case .damagedFileReplaced = $0 { true } else { false }
        }) else {
            Issue.record("no damage reported: \(events.all)")
            return
        }
        print("damaged while running: \(salvaged) rows salvaged, \(delivered.count) of 5000 delivered")
        #expect(path == directory + "/spool.db")
        #expect(FileManager.default.fileExists(atPath: movedTo), "the damaged file is kept")
        #expect(delivered.count > 4000 && delivered.count < 5000, "the readable rows flow on")
        #expect(delivered.last?.location == Fixture.location(4999))
        #expect(Set(delivered.map(\.id)).count == delivered.count, "nothing is handed out twice")
        try await spool.append(Fixture.location(6000))
        #expect(try await spool.peek(limit: 10).map(\.location) == [Fixture.location(6000)], "the new spool takes positions")
    }

    @Test func anEmptyFileBesideItsLogIsKeptAsDamagedNotStartedAfresh() async throws {
        let directory = Fixture.directory()
        let log = directory + "/spool.db-wal"
        var saved = Data()
        weak var first: Spool?
        do {
            let spool = try await Spool.open(.init(directory: directory))
            first = spool
            for n in 0..<1000 { try await spool.append(Fixture.location(n)) }
            saved = try Data(contentsOf: URL(fileURLWithPath: log))
        }
        // The last append's work on the spool's queue lets go of the spool a moment after the append
        // returned; its connection closes then, and checkpoints the log into the file. Cutting the file
        // before that would have the closing connection write into it again.
        #expect(await eventually(within: .seconds(10)) { first == nil }, "the first spool is closed before its file is cut")
        // What a filesystem repair or a careless copy leaves: the database cut to nothing, the log intact.
        #expect(truncate(directory + "/spool.db", 0) == 0)
        try saved.write(to: URL(fileURLWithPath: log))
        let events = EventLog()
        let spool = try await Spool.open(.init(directory: directory)) { events.append($0) }
        guard case let .damagedFileReplaced(_, movedTo, reason, salvaged) = events.all.first else {
            Issue.record("no damage reported: \(events.all)")
            return
        }
        #expect(reason.contains("empty") && reason.contains("write-ahead log"))
        #expect(salvaged == nil)
        #expect(events.all.first?.isError == true)
        let keptLog = try Data(contentsOf: URL(fileURLWithPath: movedTo + "-wal"))
        #expect(keptLog == saved, "the log is kept as it was, for inspection")
        #expect(try await spool.statistics().queued == 0)
    }

    @Test func refusesASpoolFileItCannotWrite() async throws {
        guard getuid() == 0 else {
            print("skipped: making one file read-only for root needs a read-only bind mount")
            return
        }
        let directory = Fixture.directory()
        do {
            let spool = try await Spool.open(.init(directory: directory))
            try await spool.append(Fixture.location(1))
        }
        // The file alone read-only, its directory writable: as a spool owned by another user is
        // to the gpstrackd user (root passes every permission check).
        let file = directory + "/spool.db"
        try ScratchFilesystem.run("/bin/mount", ["--bind", file, file])
        defer { try? ScratchFilesystem.run("/bin/umount", [file]) }
        try ScratchFilesystem.run("/bin/mount", ["-o", "remount,ro,bind", file])
        await #expect(throws: SpoolError.readOnly(path: file, owner: 0)) {
            _ = try await Spool.open(.init(directory: directory))
        }
        let message = SpoolError.readOnly(path: file, owner: 1000).description
        #expect(message.contains(file) && message.contains("uid 1000") && message.contains("chown"))
    }
}
