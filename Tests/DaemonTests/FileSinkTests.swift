import Daemon
import Foundation
import Spool
import Testing
import TrackingCore

@Suite struct FileSinkTests {
    @Test func writesJSONLinesAcknowledgesAndRotatesBySize() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("gpstrackd-sink-\(UUID().uuidString.prefix(8))").path
        let spool = try await Spool.open(.init(directory: directory))
        let start = FixTime(iso8601: "2026-11-30T08:00:00Z")!
        for n in 0..<300 {
            try await spool.append(Location(time: start.adding(seconds: Double(n)), mode: .twoD, latitude: 52.5, longitude: 13.4)!,
                                   kept: n == 0 ? .first : .heartbeat)
        }
        let path = directory + "/positions.jsonl"
        let sink = FileSink(path: path, maxBytes: 16 * 1024, spool: spool)
        #expect(try await sink.drain() == 300)
        #expect(try await spool.statistics().queued == 0, "acknowledged once written and fsynced")
        try await spool.append(Location(time: start.adding(seconds: 400), mode: .twoD, latitude: 52.5, longitude: 13.4)!)
        #expect(try await sink.drain() == 1)
        let current = try String(contentsOfFile: path, encoding: .utf8)
        let rotated = try String(contentsOfFile: path + ".1", encoding: .utf8)
        #expect(rotated.hasPrefix(#"{"time":"2026-11-30T08:00:00.000Z","mode":"2d","latitude":52.5,"longitude":13.4,"kept":"first"}"#))
        #expect(rotated.split(separator: "\n").count == 300)
        #expect(current == #"{"time":"2026-11-30T08:06:40.000Z","mode":"2d","latitude":52.5,"longitude":13.4}"# + "\n")
    }
}

@Suite struct FileSinkFailureTests {
    @Test func aWriteThatFailsSaysWhyKeepsThePositionsAndCounts() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("gpstrackd-sink-\(UUID().uuidString.prefix(8))").path
        let spool = try await Spool.open(.init(directory: directory))
        let start = FixTime(iso8601: "2026-11-30T08:00:00Z")!
        for n in 0..<5 { try await spool.append(Location(time: start.adding(seconds: Double(n)), mode: .twoD, latitude: 52.5, longitude: 13.4)!) }
        let sink = FileSink(path: directory + "/missing/positions.jsonl", maxBytes: 1 << 20, spool: spool)
        await #expect {
            try await sink.drain()
        } throws: { error in
            "\(error)" == "cannot write \(directory)/missing/positions.jsonl: No such file or directory"
        }
        #expect(try await spool.statistics().queued == 5, "nothing acknowledged that was not written")
        #expect(spool.unsent == 5, "released for the next try")
        #expect(sink.statistics.failures == 1)
        #expect(sink.statistics.written == 0)
        #expect(sink.statistics.lastError?.contains("No such file or directory") == true)
        try FileManager.default.createDirectory(atPath: directory + "/missing", withIntermediateDirectories: true)
        #expect(try await sink.drain() == 5)
        #expect(sink.statistics.failures == 0 && sink.statistics.written == 5 && sink.statistics.lastSuccess != nil)
    }

    @Test func itsLoopDrainsEveryIntervalAndAReloadChangesIt() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("gpstrackd-sink-\(UUID().uuidString.prefix(8))").path
        let spool = try await Spool.open(.init(directory: directory))
        let sink = FileSink(path: directory + "/positions.jsonl", maxBytes: 1 << 20, spool: spool, interval: 3600)
        let run = Task { await sink.run() }
        try await Task.sleep(for: .milliseconds(300))
        let start = FixTime(iso8601: "2026-11-30T08:00:00Z")!
        try await spool.append(Location(time: start, mode: .twoD, latitude: 52.5, longitude: 13.4)!)
        try await Task.sleep(for: .milliseconds(500))
        #expect(sink.statistics.written == 0, "not before the hour is up")
        sink.update(interval: 0.2)
        var waited = 0
        while sink.statistics.written == 0, waited < 50 {
            try await Task.sleep(for: .milliseconds(100))
            waited += 1
        }
        #expect(sink.statistics.written == 1, "the new interval applies at once")
        #expect(sink.longestWait >= .seconds(300), "the watchdog allows the sink its backoff")
        sink.stop()
        await run.value
    }
}
