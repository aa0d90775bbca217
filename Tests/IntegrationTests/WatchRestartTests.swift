import Foundation
import Glibc
import TestSupport
import Testing

/// `watch` keeps going while gpsd is absent, stops and comes back on the same port.
@Suite("watch survives gpsd coming and going")
struct WatchRestartTests {
    @Test func waitsForGPSDThenResumesAfterARestart() async throws {
        let directory = TestPaths.temporaryDirectory("restart")
        let port = FreePort.next()
        let endpoint = "127.0.0.1:\(port)"
        let watch = try ChildProcess(TestPaths.gpstrackd, ["watch", "--gpsd", endpoint], directory: directory, name: "watch")
        defer { watch.terminate() }

        // No gpsd yet: reported once, not once per attempt (attempts at 1 s and 2 s happen here).
        try await Task.sleep(for: .milliseconds(3300))
        #expect(watch.stderr.components(separatedBy: "cannot connect to gpsd").count - 1 == 1, "\(watch.stderr)")
        #expect(watch.stdout.isEmpty)

        let first = try await GPSFake.start(log: TestPaths.fixture("telit-he910.log"), cycle: 0.004, port: port, directory: directory, name: "gpsfake-1")
        #expect(await ChildProcess.waitUntil(timeout: 60) { watch.stderr.contains("receiver gone") }, "\(watch.stderr)")
        let linesFromFirst = watch.stdoutLines.count
        #expect(linesFromFirst > 50)
        await first.stop()
        #expect(await ChildProcess.waitUntil(timeout: 10) { watch.stderr.contains("lost the connection to gpsd") }, "\(watch.stderr)")

        let second = try await GPSFake.start(
            log: TestPaths.fixture("drive-seed11-first5min.nmea"), cycle: 0.005, port: port, directory: directory, name: "gpsfake-2")
        defer { second.kill() }
        #expect(await ChildProcess.waitUntil(timeout: 60) {
            watch.stderr.components(separatedBy: "receiver gone").count - 1 >= 2
        }, "\(watch.stderr)")
        #expect(watch.stderr.components(separatedBy: "gpsd connected").count - 1 == 2, "\(watch.stderr)")
        watch.send(SIGTERM)
        let started = Date()
        #expect(await watch.waitForExit(timeout: 5))
        #expect(Date().timeIntervalSince(started) < 1.0)
        #expect(watch.terminationStatus == 0)

        let locations = try watch.stdoutLines.map(WatchLine.init)
        let fromSecond = locations.filter { $0.time.hasPrefix("2026-11-02") }
        #expect(locations.count > linesFromFirst)
        #expect(fromSecond.count > 100, "after the restart watch printed \(fromSecond.count) fixes of the new gpsd")
        for (a, b) in zip(locations, locations.dropFirst()) { #expect(a.time < b.time) }
    }

    @Test func stopsWithinASecondWhileGPSDIsUnreachable() async throws {
        let directory = TestPaths.temporaryDirectory("unreachable")
        let watch = try ChildProcess(
            TestPaths.gpstrackd, ["watch", "--gpsd", "127.0.0.1:\(FreePort.next())"], directory: directory, name: "watch")
        defer { watch.terminate() }
        #expect(await ChildProcess.waitUntil(timeout: 5) { watch.stderr.contains("cannot connect to gpsd") })
        try await Task.sleep(for: .milliseconds(1500))
        watch.send(SIGINT)
        let started = Date()
        #expect(await watch.waitForExit(timeout: 5))
        #expect(Date().timeIntervalSince(started) < 1.0)
        #expect(watch.terminationStatus == 0)
    }
}
