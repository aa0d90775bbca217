import Foundation
import Spool
import Testing
import TestSupport
import TrackingCore
import Uploader

/// The file sink: a destination the uploader drives like the tracker.
@Suite struct FileDestinationTests {
    static let start = FixTime(iso8601: "2026-11-30T08:00:00Z")!

    static func directory() -> String {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("gpstrackd-file-\(UUID().uuidString.prefix(8))").path
        try? FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        return path
    }

    static func location(_ n: Int) -> Location { Location(time: start.adding(seconds: Double(n)), mode: .twoD, latitude: 52.5, longitude: 13.4)! }

    static func configuration(interval: Double) -> Uploader.Configuration {
        var configuration = Uploader.Configuration(tracker: "", deviceID: "van")
        configuration.uploadInterval = interval
        return configuration
    }

    @Test func writesJSONLinesAndRotatesBySize() async throws {
        let path = Self.directory() + "/positions.jsonl"
        let file = FileDestination(path: path, maxBytes: 16 * 1024)
        let rows = (0..<300).map { SpooledPosition(id: Int64($0), location: Self.location($0), kept: $0 == 0 ? .first : .heartbeat) }
        #expect(try await file.deliver(rows, Self.configuration(interval: 5)) == Array(repeating: .stored, count: 300))
        _ = try await file.deliver([SpooledPosition(id: 301, location: Self.location(400), kept: nil)], Self.configuration(interval: 5))
        let current = try String(contentsOfFile: path, encoding: .utf8)
        let rotated = try String(contentsOfFile: path + ".1", encoding: .utf8)
        #expect(rotated.hasPrefix(#"{"time":"2026-11-30T08:00:00.000Z","mode":"2d","latitude":52.5,"longitude":13.4,"kept":"first"}"#))
        #expect(rotated.split(separator: "\n").count == 300)
        #expect(current == #"{"time":"2026-11-30T08:06:40.000Z","mode":"2d","latitude":52.5,"longitude":13.4}"# + "\n")
        #expect(file.limits(Self.configuration(interval: 5)) == DestinationLimits(batchSize: 500, maxInFlight: 1, rateLimited: false, drainsOnStop: true, waitsFromFixTime: false))
    }

    @Test func aWriteThatFailsSaysWhyAndIsRetriedWithThePositionsKept() async throws {
        let directory = Self.directory()
        let spool = try await Spool.open(.init(directory: directory))
        for n in 0..<5 { try await spool.append(Self.location(n)) }
        let path = directory + "/missing/positions.jsonl"
        let file = FileDestination(path: path, maxBytes: 1 << 20)
        await #expect(throws: DeliveryFailure("cannot open \(path): No such file or directory", disposition: .retry(after: nil))) {
            _ = try await file.deliver([SpooledPosition(id: 1, location: Self.location(0), kept: nil)], Self.configuration(interval: 5))
        }
        // Through the uploader: nothing acknowledged that was not written; written once it can be.
        let uploader = Uploader(configuration: Self.configuration(interval: 0.1), spool: spool, destination: file, random: { 0.5 })
        let running = Task { await uploader.run() }
        #expect(await eventually { uploader.statistics.lastError != nil })
        #expect(uploader.statistics.lastError == "cannot open \(path): No such file or directory")
        #expect(try await spool.statistics().queued == 5)
        try FileManager.default.createDirectory(atPath: directory + "/missing", withIntermediateDirectories: true)
        // Counted once acknowledged: wait for the count, then check the queue.
        #expect(await eventually { uploader.statistics.uploaded == 5 })
        #expect(uploader.statistics.uploaded == 5 && uploader.statistics.lastSuccess != nil)
        #expect(try await spool.statistics().queued == 0)
        uploader.stop()
        await running.value
    }

    @Test func aPartialBatchWaitsTheIntervalAReloadChangesItAndAStopWritesTheRest() async throws {
        let directory = Self.directory()
        let spool = try await Spool.open(.init(directory: directory))
        let path = directory + "/positions.jsonl"
        // Fixes of now: they wait the whole hour for company.
        let now = SystemClock.now()
        func fresh(_ n: Int) -> Location { Location(time: now.adding(seconds: Double(n) / 10), mode: .twoD, latitude: 52.5, longitude: 13.4)! }
        let uploader = Uploader(configuration: Self.configuration(interval: 3600), spool: spool, destination: FileDestination(path: path, maxBytes: 1 << 20))
        let running = Task { await uploader.run() }
        try await spool.append(fresh(0))
        // A fix weeks old waits too: the file's interval counts from when a batch is first seen.
        try await spool.append(Self.location(0))
        try await Task.sleep(for: .milliseconds(300))
        #expect(uploader.statistics.uploaded == 0, "not before the hour is up")
        var settings = uploader.configuration
        settings.uploadInterval = 0.2
        uploader.update(settings)
        #expect(await eventually { uploader.statistics.uploaded == 2 }, "the new interval applies at once")
        #expect(uploader.longestWait >= .seconds(10))
        settings.uploadInterval = 3600
        uploader.update(settings)
        for n in 1...3 { try await spool.append(fresh(n)) }
        uploader.stop()
        await running.value
        #expect(try String(contentsOfFile: path, encoding: .utf8).split(separator: "\n").count == 5, "what was queued at the stop is in the file")
        #expect(try await spool.statistics().queued == 0)
    }
}
