import Foundation
import Glibc
import TestSupport
import Testing
import TrackingCore

/// `gpstrackd watch --filter` on the generated drive through a real gpsd, against ground truth.
@Suite struct WatchFilterTests {
    @Test func keepsAFaithfulTrackWithFewPoints() async throws {
        let directory = TestPaths.temporaryDirectory("filter")
        // The lead-in lets watch connect before the drive's first fix (see `GPSFake.leadIn`).
        let log = try GPSFake.leadIn(TestPaths.fixture("drive-seed7.nmea"), seconds: 400, directory: directory)
        let gpsd = try await GPSFake.start(log: log, cycle: 0.002, directory: directory)
        defer { gpsd.kill() }
        let watch = try ChildProcess(TestPaths.gpstrackd, ["watch", "--filter", "--gpsd", gpsd.endpoint], directory: directory, name: "watch")
        defer { watch.terminate() }
        #expect(await ChildProcess.waitUntil(timeout: 60) { watch.stderr.contains("receiver gone") }, "\(watch.stderr)")
        watch.send(SIGTERM)
        #expect(await watch.waitForExit(timeout: 5))
        #expect(watch.terminationStatus == 0)

        let lines = watch.stdoutLines
        let kept = try lines.map(WatchLine.init)
        #expect(kept.allSatisfy { $0.kept != nil }, "every line names its trigger")
        #expect(kept.first?.kept == "first")
        let summary = try #require(watch.stderr.split(separator: "\n").first { $0.hasPrefix("filter: in=") })
        #expect(summary.contains("kept=\(kept.count) "), "\(summary)")

        let truth = try String(contentsOfFile: TestPaths.fixture("drive-seed7.truth.jsonl"), encoding: .utf8)
            .split(whereSeparator: \.isNewline).compactMap { line -> TrackFidelity.PathPoint? in
                guard let object = try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any],
                      let time = (object["time"] as? String).flatMap(FixTime.init(iso8601:)),
                      let lat = (object["lat"] as? NSNumber)?.doubleValue, let lon = (object["lon"] as? NSNumber)?.doubleValue
                else { return nil }
                return .init(time: time, latitude: lat, longitude: lon)
            }
        let locations = kept.compactMap { line in
            FixTime(iso8601: line.time).flatMap { Location(time: $0, mode: .threeD, latitude: line.latitude, longitude: line.longitude) }
        }
        let fidelity = TrackFidelity(kept: locations, path: truth)
        print("watch --filter: \(fidelity.pointCount) points, \(fidelity.pointsPerKilometre) per km, max deviation \(fidelity.maxDeviation) m; \(summary)")
        #expect(fidelity.pointsPerKilometre <= 4.0)
        #expect(fidelity.maxDeviation <= 12.0)
        for (a, b) in zip(kept, kept.dropFirst()) { #expect(a.time < b.time) }
    }
}
