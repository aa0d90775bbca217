import Foundation
@testable import Spool
import Testing
import TestSupport
import TrackingCore

/// A real filesystem that another program fills: the spool thins its oldest positions, never
/// loses the newest, and counts everything it drops.
@Suite struct SpoolDiskFullTests {
    typealias Fixture = SpoolTests

    /// A spool on a tmpfs of `megabytes` with 3,000 positions in it.
    final class Scene: @unchecked Sendable {
        let mount: ScratchFilesystem
        let events = EventLog()
        let spool: Spool
        var appended = 0

        init(megabytes: Int) async throws {
            mount = try ScratchFilesystem(megabytes: megabytes)
            spool = try await Spool.open(.init(directory: mount.path)) { [events] in events.append($0) }
            try await append(3000)
        }

        func append(_ count: Int) async throws {
            for _ in 0..<count {
                try await spool.append(Fixture.location(appended))
                appended += 1
            }
        }
    }

    @Test func aFilledDiskThinsTheOldestAndKeepsEveryNewPosition() async throws {
        guard getuid() == 0 else {
            print("skipped: mounting a 16 MB tmpfs needs root")
            return
        }
        let scene = try await Scene(megabytes: 16)
        defer { scene.mount.remove() }
        let filler = scene.mount.fill()
        let duringFill = scene.appended
        try await scene.append(1500)
        let whileFull = try await scene.spool.statistics()
        try FileManager.default.removeItem(atPath: filler)
        try await scene.append(200)
        let stats = try await scene.spool.statistics()
        let delivered = try await Fixture.drainSeconds(scene.spool)
        let (appended, events) = (scene.appended, scene.events)
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
        let scene = try await Scene(megabytes: megabytes)
        defer { scene.mount.remove() }
        let filler = scene.mount.fill()
        try await scene.append(12_000)
        // The tracker comes back while the disk is still full: acknowledgements are written.
        var delivered = try await Fixture.drainSeconds(scene.spool, batches: 20)
        let whileFull = try await scene.spool.statistics()
        #expect(whileFull.inFlight == 0, "acknowledged rows are deleted, not left in flight")
        try FileManager.default.removeItem(atPath: filler)
        let stats = try await scene.spool.statistics()
        delivered += try await Fixture.drainSeconds(scene.spool)
        let (appended, events) = (scene.appended, scene.events)
        print("long fill (\(megabytes) MB tmpfs): appended \(appended), delivered \(delivered.count), evictions \(stats.evictions), "
            + "held \(whileFull.heldInMemory), store failures \(whileFull.storeFailures), \(events.all.count) events")
        #expect(stats.evictions > 0)
        #expect(Int64(delivered.count) + stats.evictions == Int64(appended), "every position is delivered or counted as thinned")
        #expect(Array(delivered.suffix(1000)) == Array((appended - 1000)..<appended), "the newest positions are all kept")
        #expect(delivered == delivered.sorted())
        #expect(delivered.first == 0, "thinning keeps every other of the oldest, not a cut")
    }

    @Test func withNoRoomAtAllPositionsWaitInMemoryInOrderAndAreStoredWhenThereIsRoom() async throws {
        guard getuid() == 0 else {
            print("skipped: mounting a tmpfs needs root")
            return
        }
        let scene = try await Scene(megabytes: 16)
        defer { scene.mount.remove() }
        // The reserve already spent and the log cut back to nothing: not even thinning can be written.
        try Fixture.checkpointFromOutside(scene.mount.path)
        try FileManager.default.removeItem(atPath: scene.mount.path + "/spool.db.reserve")
        let filler = scene.mount.fill()
        try await scene.append(50)
        let whileFull = try await scene.spool.statistics()
        print("no room at all: held \(whileFull.heldInMemory), store failures \(whileFull.storeFailures)")
        #expect(whileFull.heldInMemory == 50, "\(whileFull)")
        #expect(whileFull.storeFailures == 50, "each position counted once, however often it is tried")
        #expect(whileFull.queued == 3050, "held positions count as queued")
        try FileManager.default.removeItem(atPath: filler)
        try await scene.append(1)
        // Every operation tries the held positions again; the status poll is one of them.
        var after = try await scene.spool.statistics()
        for _ in 0..<50 where after.heldInMemory > 0 {
            try await Task.sleep(for: .milliseconds(100))
            after = try await scene.spool.statistics()
        }
        #expect(after.heldInMemory == 0, "\(after)")
        let delivered = try await Fixture.drainSeconds(scene.spool)
        #expect(delivered == Array(0..<scene.appended), "everything, in order: \(delivered.count) of \(scene.appended)")
        #expect(after.evictions == 0)
        let said = scene.events.all.filter {
            switch $0 {
            case .heldInMemory, .storedAfterDiskFull: true
            default: false
            }
        }
        #expect(said == [.heldInMemory(path: scene.mount.path + "/spool.db", count: 1), .storedAfterDiskFull], "said once each: \(said)")
    }
}
