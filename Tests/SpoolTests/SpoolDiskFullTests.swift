import Foundation
@testable import Spool
import Testing
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
        #expect(events.all.contains { if case .reserveReleased = $0 { true } else { false } } || stats.evictions > 0)
    }
}
