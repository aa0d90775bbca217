import Foundation
import Testing
import TestSupport
import TrackingCore

/// `Tests/Routes/make_routes.py`, the generator of our own drives: the error its receiver reports
/// must follow the error it makes, or the quality gate is measured against a receiver no real one
/// is (a multipath burst's fix let through because it claimed the accuracy of a clean one).
@Suite struct RouteGeneratorTests {
    static let script = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("Routes/make_routes.py").path

    /// Each epoch's distance from the truth, over the error its GST reports (the latitude's
    /// 1-sigma, the same as the longitude's): the largest.
    static func largestErrorRatio(route: String, seed: Int) async throws -> (ratio: Double, epochs: Int) {
        let directory = TestPaths.temporaryDirectory("routes")
        defer { try? FileManager.default.removeItem(at: directory) }
        let nmea = directory.appendingPathComponent("drive.nmea").path
        let truthPath = directory.appendingPathComponent("drive.truth.jsonl").path
        let child = try ChildProcess("/usr/bin/env", ["python3", script, "--route", route, "--seed", "\(seed)", "--rate", "1",
                                                      "--out", nmea, "--truth", truthPath], directory: directory, name: "make_routes")
        #expect(await child.waitForExit(timeout: 60), "make_routes.py ends")
        try #require(child.terminationStatus == 0, "make_routes.py: \(child.stderr)")

        // The sentences by their time field (hhmmss.ss): GGA's position, GST's error.
        var positions: [String: (latitude: Double, longitude: Double)] = [:]
        var errors: [String: Double] = [:]
        for line in try String(contentsOfFile: nmea, encoding: .utf8).split(whereSeparator: \.isNewline) {
            let fields = line.split(separator: "*")[0].split(separator: ",", omittingEmptySubsequences: false).map(String.init)
            if fields[0] == "$GPGGA", let latitude = Double(fields[2]), let longitude = Double(fields[4]) {
                positions[fields[1]] = (TrackerFilteringTests.degrees(nmea: latitude, fields[3]), TrackerFilteringTests.degrees(nmea: longitude, fields[5]))
            } else if fields[0] == "$GPGST", let error = Double(fields[6]) {
                errors[fields[1]] = error
            }
        }
        var (ratio, epochs) = (0.0, 0)
        for truth in try TrackerFilteringTests.truth(atPath: truthPath) {
            // "2026-11-02T09:00:01.200Z" -> "090001.20", the sentences' time field
            let clock = Array(truth.time.iso8601.dropFirst(11))
            let key = String(clock[0..<2] + clock[3..<5] + clock[6..<8]) + "." + String(clock[9..<11])
            guard let position = positions[key], let error = errors[key], error > 0 else { continue }
            ratio = max(ratio, Geodesy.distance((position.latitude, position.longitude), (truth.latitude, truth.longitude)) / error)
            epochs += 1
        }
        return (ratio, epochs)
    }

    /// The canyon's bursts of reflected signal and a random road's: every epoch of a burst, the
    /// last one too, reports part of the burst in its error. Outside bursts the offset is the
    /// wandering drift plus noise, reported with 2 m to spare; in one, 0.6 of the burst's size is
    /// reported, so no epoch stands off the truth by more than about twice its reported error.
    /// (The burst's last epoch once reported only the drift: 4.4 and 5.7 times its error here.)
    @Test(arguments: ["canyon", "random"])
    func everyEpochReportsItsOwnError(route: String) async throws {
        let (ratio, epochs) = try await Self.largestErrorRatio(route: route, seed: 101)
        print("make_routes \(route) seed 101: \(epochs) epochs, largest offset \(String(format: "%.2f", ratio))x the reported error")
        #expect(epochs > 200, "the drive's epochs were read")
        #expect(ratio <= 2.5, "no epoch farther off the truth than 2.5x the error it reports")
    }
}
