import Foundation
@testable import Spool
import Testing
import TestSupport
import TrackingCore

/// A real filesystem that another program fills: the spool thins its oldest positions, never
/// loses the newest, and counts everything it drops.
@Suite struct SpoolDiskFullTests {
    typealias Fixture = SpoolTests

    @Test func aFilledDiskThinsTheOldestAndKeepsEveryNewPosition() async throws {
        guard getuid() == 0 else {
            print("skipped: mounting a 16 MB tmpfs needs root")
            return
        }
        let mount = try ScratchFilesystem(megabytes: 16)
        defer { mount.remove() }
        let events = EventLog()
        let spool = try await Spool.open(.init(directory: mount.path)) { events.append($0) }
        var appended = 0
        for _ in 0..<3000 {
            try await spool.append(Fixture.location(appended))
            appended += 1
        }
        let filler = mount.fill()
        let duringFill = appended
        for _ in 0..<1500 {
            try await spool.append(Fixture.location(appended))
            appended += 1
        }
        let whileFull = try await spool.statistics()
        try FileManager.default.removeItem(atPath: filler)
        for _ in 0..<200 {
            try await spool.append(Fixture.location(appended))
            appended += 1
        }
        let stats = try await spool.statistics()
        var delivered: [Int] = []
        while true {
            let rows = try await spool.peek(limit: 10)
            if rows.isEmpty { break }
            try await spool.ack(rows.map(\.id))
            delivered += rows.map { Int(Fixture.start.seconds(to: $0.location.time)) }
        }
        print("disk full (16 MB tmpfs): appended \(appended), delivered \(delivered.count), evictions \(stats.evictions), "
            + "held while full \(whileFull.heldInMemory), store failures \(whileFull.storeFailures), events \(events.all.map(\.description))")
        #expect(Int64(delivered.count) + stats.evictions == Int64(appended), "every position is delivered or counted as thinned")
        #expect(Array(delivered.suffix(appended - duringFill)) == Array(duringFill..<appended),
                "every position that came while the disk was full, and after, is kept")
        #expect(delivered == delivered.sorted(), "in order")
        #expect(stats.heldInMemory == 0, "held positions are stored once there is room")
        #expect(stats.evictions == 0, "the reserve's room is enough for a short fill: nothing is thinned")
        #expect(events.all.contains { if case .reserveReleased = $0 { true } else { false } })
        #expect(events.all.contains { if case .reserveRestored = $0 { true } else { false } }, "the reserve comes back with the room")
    }

    @Test(arguments: [16, 3])
    func aLongFillThinsTheOldestOnceTheReserveIsSpent(megabytes: Int) async throws {
        guard getuid() == 0 else {
            print("skipped: mounting a tmpfs needs root")
            return
        }
        let mount = try ScratchFilesystem(megabytes: megabytes)
        defer { mount.remove() }
        let events = EventLog()
        let spool = try await Spool.open(.init(directory: mount.path)) { events.append($0) }
        var appended = 0
        for _ in 0..<3000 {
            try await spool.append(Fixture.location(appended))
            appended += 1
        }
        let filler = mount.fill()
        for _ in 0..<12_000 {
            try await spool.append(Fixture.location(appended))
            appended += 1
        }
        // The tracker comes back while the disk is still full: acknowledgements are written.
        var delivered: [Int] = []
        for _ in 0..<20 {
            let rows = try await spool.peek(limit: 10)
            try await spool.ack(rows.map(\.id))
            delivered += rows.map { Int(Fixture.start.seconds(to: $0.location.time)) }
        }
        let whileFull = try await spool.statistics()
        #expect(whileFull.inFlight == 0, "acknowledged rows are deleted, not left in flight")
        try FileManager.default.removeItem(atPath: filler)
        let stats = try await spool.statistics()
        while true {
            let rows = try await spool.peek(limit: 10)
            if rows.isEmpty { break }
            try await spool.ack(rows.map(\.id))
            delivered += rows.map { Int(Fixture.start.seconds(to: $0.location.time)) }
        }
        print("long fill (\(megabytes) MB tmpfs): appended \(appended), delivered \(delivered.count), evictions \(stats.evictions), "
            + "held \(whileFull.heldInMemory), store failures \(whileFull.storeFailures), \(events.all.count) events")
        #expect(stats.evictions > 0)
        #expect(Int64(delivered.count) + stats.evictions == Int64(appended), "every position is delivered or counted as thinned")
        #expect(Array(delivered.suffix(1000)) == Array((appended - 1000)..<appended), "the newest positions are all kept")
        #expect(delivered == delivered.sorted())
        #expect(delivered.first == 0, "thinning keeps every other of the oldest, not a cut")
    }
}
