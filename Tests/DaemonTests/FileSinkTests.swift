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
