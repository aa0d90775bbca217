import Foundation
import Glibc
import TestSupport
import Testing

/// A receiver that dates ten epochs tomorrow in the middle of a drive, through a real gpsd: the
/// glitch is skipped and said once, and tracking goes on with the next sane fix.
@Suite struct ReceiverTimeGlitchTests {
    /// The drive with the RMC dates of 09:03:00 to 09:03:09 moved to the next day (late enough that
    /// watch has connected however busy the machine is).
    static func glitchedDrive(in directory: URL) throws -> String {
        let lines = try String(contentsOfFile: TestPaths.fixture("drive-seed11-first5min.nmea"), encoding: .utf8)
            .split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        let changed = lines.map { line -> String in
            guard line.hasPrefix("$GPRMC,09030"), let star = line.lastIndex(of: "*") else { return line }
            let body = String(line[line.index(after: line.startIndex)..<star]).replacingOccurrences(of: ",021126,", with: ",031126,")
            let checksum = body.utf8.reduce(UInt8(0)) { $0 ^ $1 }
            return "$" + body + "*" + String(format: "%02X", checksum)
        }
        #expect(changed.filter { $0.contains(",031126,") }.count == 10)
        let path = directory.appendingPathComponent("glitched-drive.nmea").path
        try changed.joined(separator: "\n").write(toFile: path, atomically: true, encoding: .utf8)
        return path
    }

    @Test func tenEpochsDatedTomorrowAreSkippedAndTrackingResumes() async throws {
        let directory = TestPaths.temporaryDirectory("time-glitch")
        let gpsd = try await GPSFake.start(log: try Self.glitchedDrive(in: directory), cycle: 0.006, directory: directory)
        defer { gpsd.kill() }
        let watch = try ChildProcess(TestPaths.gpstrackd, ["watch", "--gpsd", gpsd.endpoint], directory: directory, name: "watch")
        defer { watch.terminate() }
        #expect(await ChildProcess.waitUntil(timeout: 60) { watch.stderr.contains("receiver gone") }, "\(watch.stderr)")
        watch.send(SIGTERM)
        #expect(await watch.waitForExit(timeout: 5))
        let times = try watch.stdoutLines.map(WatchLine.init).map(\.time)
        let afterGlitch = times.filter { $0 > "2026-11-02T09:03:09.999Z" && $0.hasPrefix("2026-11-02") }
        print("time glitch through gpsd: \(times.count) fixes, \(afterGlitch.count) after the glitch")
        #expect(!times.contains { $0.hasPrefix("2026-11-03") }, "no fix dated tomorrow")
        #expect(afterGlitch.count > 80, "tracking resumed with the next sane fix (the drive ends at 09:05)")
        #expect(times.contains("2026-11-02T09:02:59.000Z") && times.contains("2026-11-02T09:03:10.000Z"), "\(times.prefix(3))")
        #expect(times == times.sorted())
        #expect(watch.stderr.components(separatedBy: "far from its timeline").count - 1 == 1, "said once: \(watch.stderr)")
        #expect(watch.stderr.contains("consistent again; skipped 10 fix(es)"), "\(watch.stderr)")
    }
}
