import AWSLocation
import Foundation
import Glibc
import TestSupport
import Testing
import TrackingCore

/// gpsfake drive → `gpstrackd run` → the project's emulator, and the file sink on a fresh state directory.
@Suite struct DaemonEndToEndTests {
    /// A datagram socket standing in for systemd's NOTIFY_SOCKET.
    final class NotifySocket: @unchecked Sendable {
        let path: String
        let fd: Int32
        init(directory: URL) {
            path = directory.appendingPathComponent("notify.sock").path
            fd = socket(AF_UNIX, Int32(SOCK_DGRAM.rawValue), 0)
            var address = sockaddr_un()
            address.sun_family = sa_family_t(AF_UNIX)
            withUnsafeMutableBytes(of: &address.sun_path) { raw in
                for (i, b) in path.utf8.enumerated() { raw[i] = b }
            }
            _ = withUnsafePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) }
            }
        }
        private var received: [String] = []
        /// Every message received so far (reading drains the socket, as systemd does).
        func messages() -> [String] {
            var buffer = [UInt8](repeating: 0, count: 4096)
            while true {
                let n = recv(fd, &buffer, buffer.count, Int32(MSG_DONTWAIT))
                if n <= 0 { return received }
                received.append(String(decoding: buffer[0..<n], as: UTF8.self))
            }
        }
        deinit { close(fd) }
    }

    @Test func keptPositionsArriveAtTheTrackerAcrossARestart() async throws {
        let directory = TestPaths.temporaryDirectory("e2e")
        let emulator = try await TrackerEmulator.start(directory: directory)
        defer { emulator.stop() }
        let gpsd = try await GPSFake.start(log: TestPaths.fixture("drive-seed7.nmea"), cycle: 0.002, directory: directory)
        defer { gpsd.kill() }
        let notify = NotifySocket(directory: directory)
        let state = directory.appendingPathComponent("state").path
        let settings = ["--config", "/dev/null", "--gpsd", gpsd.endpoint, "--state-dir", state, "--tracker", "fleet",
                        "--region", "eu-west-1", "--endpoint", emulator.endpoint.description, "--upload-interval", "1",
                        "--device-id", "truck-1", "--log-format", "text"]
        let environment = ["AWS_ACCESS_KEY_ID=\(TrackerEmulator.accessKey)", "AWS_SECRET_ACCESS_KEY=\(TrackerEmulator.secretKey)",
                           "NOTIFY_SOCKET=\(notify.path)", "WATCHDOG_USEC=2000000", "PATH=/usr/bin:/bin", "HOME=\(directory.path)"]
        let first = try ChildProcess("/usr/bin/env", ["-i"] + environment + [TestPaths.gpstrackd, "run"] + settings, directory: directory, name: "daemon-1")
        defer { first.terminate() }
        // Stop the first daemon in the middle of the drive ...
        #expect(await ChildProcess.waitUntil(timeout: 60) { _ = notify.messages(); return first.stderr.contains("fix acquired") }, "\(first.stderr)")
        try await Task.sleep(for: .seconds(3))
        // The tracker sink opened OpenSSL (dlopen) to sign its requests.
        let maps = try String(contentsOfFile: "/proc/\(first.pid)/maps", encoding: .utf8)
        #expect(maps.contains("/libcrypto.so.3") && maps.contains("/libssl.so.3"), "the tracker sink loads OpenSSL")
        first.send(SIGTERM)
        #expect(await first.waitForExit(timeout: 20))
        #expect(first.terminationStatus == 0, "\(first.stderr)")
        #expect(!first.stderr.contains("receiver gone"), "the first daemon must stop before the drive ends")
        let messages = notify.messages().joined(separator: "\n")
        #expect(messages.contains("READY=1"))
        #expect(messages.contains("STOPPING=1"))
        #expect(messages.contains("WATCHDOG=1"))
        #expect(messages.contains("STATUS=3D fix, ") && messages.contains(" queued, last upload "), "\(messages)")

        // ... and a second one, on the same state directory, takes over the rest of it.
        let second = try ChildProcess("/usr/bin/env", ["-i"] + environment + [TestPaths.gpstrackd, "run"] + settings,
                                      directory: directory, name: "daemon-2")
        defer { second.terminate() }
        #expect(await ChildProcess.waitUntil(timeout: 60) { second.stderr.contains("receiver gone") }, "\(second.stderr)")
        try await Task.sleep(for: .seconds(2))
        second.send(SIGTERM)
        #expect(await second.waitForExit(timeout: 20))
        #expect(second.terminationStatus == 0, "\(second.stderr)")
        #expect(second.stderr.contains("queued=0"), "\(second.stderr)")
        func kept(_ log: String) -> Int {
            let line = log.split(separator: "\n").first { $0.contains("gpstrackd stopped") } ?? ""
            return Int(line.split(separator: " ").first { $0.hasPrefix("kept=") }?.dropFirst(5) ?? "") ?? -1
        }
        let (keptFirst, keptSecond) = (kept(first.stderr), kept(second.stderr))

        let arrived = try await emulator.positions()
        let times = arrived.compactMap(UploaderIntegrationTests.sampleTime)
        print("end to end: \(times.count) positions arrived, \(keptFirst) + \(keptSecond) kept")
        // gpsfake plays the drive on, hundreds of times faster than it was driven, while the second
        // daemon starts: the minutes of driving that fall into that gap, and so the points the two
        // keep (16 to 26 of the whole drive's 27), depend on the machine's load.
        #expect(keptFirst > 0 && keptSecond > 0, "each daemon kept and sent positions")
        #expect(times.count >= 10)
        #expect(times.count == keptFirst + keptSecond, "exactly the positions both daemons kept arrive")
        #expect(times == times.sorted() && Set(times).count == times.count)
        #expect(arrived.allSatisfy { $0["DeviceId"] as? String == "truck-1" })
    }

    @Test func theFileSinkWritesKeptPositionsOnAFreshStateDirectory() async throws {
        let directory = TestPaths.temporaryDirectory("file-sink")
        let gpsd = try await GPSFake.start(log: TestPaths.fixture("drive-seed7.nmea"), cycle: 0.002, directory: directory)
        defer { gpsd.kill() }
        let state = directory.appendingPathComponent("fresh/state").path
        let metrics = directory.appendingPathComponent("gpstrackd.prom").path
        let daemon = try ChildProcess(TestPaths.gpstrackd, ["--config", "/dev/null", "--gpsd", gpsd.endpoint, "--state-dir", state,
                                                            "--metrics-file", metrics],
                                      directory: directory, name: "daemon")
        defer { daemon.terminate() }
        #expect(await ChildProcess.waitUntil(timeout: 60) { daemon.stderr.contains("receiver gone") }, "\(daemon.stderr)")
        // Status while it runs, found through the same state directory; metrics; SIGUSR1.
        try await Task.sleep(for: .seconds(6))
        let status = try ChildProcess(TestPaths.gpstrackd, ["status", "--json", "--config", "/dev/null", "--state-dir", state],
                                      directory: directory, name: "status")
        #expect(await status.waitForExit(timeout: 20))
        #expect(status.terminationStatus == 0, "\(status.stderr)")
        let object = try #require(try JSONSerialization.jsonObject(with: Data(status.stdout.utf8)) as? [String: Any], "\(status.stdout)")
        let filter = try #require(object["filter"] as? [String: Any])
        #expect(((filter["in"] as? NSNumber)?.intValue ?? 0) > 100)
        let lastFix = try #require(object["lastFix"] as? [String: Any], "\(object)")
        #expect(lastFix["time"] as? String != nil)
        // The drive's receiver sends GST: its figure reported (5-10 m), gpsd's beside it (13-27 m).
        let reported = (lastFix["horizontalAccuracy"] as? NSNumber)?.doubleValue ?? 0
        let gpsds = (lastFix["filterAccuracy"] as? NSNumber)?.doubleValue ?? 0
        #expect(reported > 3 && reported < 11 && gpsds > reported, "\(lastFix)")
        #expect(object["spool"] != nil && object["upload"] != nil && object["gpsd"] != nil && object["credentials"] != nil)
        let upload = try #require(object["upload"] as? [String: Any])
        #expect(((upload["uploaded"] as? NSNumber)?.intValue ?? 0) > 0, "the file sink's own count, not 0: \(upload)")
        #expect(upload["lastSuccess"] as? String != nil, "\(upload)")
        let prometheus = try String(contentsOfFile: metrics, encoding: .utf8)
        #expect(prometheus.contains("# TYPE gpstrackd_fixes_total counter"))
        #expect(prometheus.contains("gpstrackd_kept_total "))
        // OpenSSL is the tracker's alone: the file sink never maps it (1.7 MB of resident memory).
        let maps = try String(contentsOfFile: "/proc/\(daemon.pid)/maps", encoding: .utf8)
        #expect(!maps.contains("libssl") && !maps.contains("libcrypto"), "the file sink never maps OpenSSL")
        daemon.send(SIGUSR1)
        #expect(await ChildProcess.waitUntil(timeout: 10) { daemon.stderr.contains("status: gpsd:") }, "\(daemon.stderr)")
        daemon.send(SIGTERM)
        #expect(await daemon.waitForExit(timeout: 20))
        #expect(daemon.terminationStatus == 0, "\(daemon.stderr)")
        let stopped = try ChildProcess(TestPaths.gpstrackd, ["status", "--config", "/dev/null", "--state-dir", state],
                                       directory: directory, name: "status-stopped")
        #expect(await stopped.waitForExit(timeout: 20))
        #expect(stopped.terminationStatus == 69)
        #expect(stopped.stdout.hasPrefix("gpstrackd is not running"))
        let lines = try String(contentsOfFile: state + "/positions.jsonl", encoding: .utf8).split(separator: "\n").map(String.init)
        #expect(lines.count >= 20)
        let parsed = try lines.map(WatchLine.init)
        #expect(parsed.first?.kept == "first")
        #expect(parsed.allSatisfy { $0.kept != nil })
        #expect(parsed.map(\.time) == parsed.map(\.time).sorted())
    }
}

/// The watchdog pings while every loop keeps its own promise.
@Suite struct WatchdogTests {
    @Test func anIdleUploaderWithALongIntervalIsNotCalledStuck() async throws {
        let directory = TestPaths.temporaryDirectory("watchdog")
        let emulator = try await TrackerEmulator.start(directory: directory)
        defer { emulator.stop() }
        let notify = DaemonEndToEndTests.NotifySocket(directory: directory)
        let daemon = try ChildProcess("/usr/bin/env", [
            "-i", "AWS_ACCESS_KEY_ID=\(TrackerEmulator.accessKey)", "AWS_SECRET_ACCESS_KEY=\(TrackerEmulator.secretKey)",
            "NOTIFY_SOCKET=\(notify.path)", "WATCHDOG_USEC=10000000", "PATH=/usr/bin:/bin", "HOME=\(directory.path)",
            TestPaths.gpstrackd, "run", "--config", "/dev/null", "--gpsd", "127.0.0.1:\(FreePort.next())",
            "--state-dir", directory.appendingPathComponent("state").path, "--tracker", "fleet", "--region", "eu-west-1",
            "--endpoint", emulator.endpoint.description, "--upload-interval", "120", "--log-format", "text",
            "--tracker-filtering", "none",
        ], directory: directory, name: "daemon")
        defer { daemon.terminate() }
        // Idle (no gpsd, nothing queued): the uploader waits 120 s at a time. Past 60 s, the pings go on.
        try await Task.sleep(for: .seconds(72))
        let messages = notify.messages()
        let pings = messages.filter { $0.contains("WATCHDOG=1") }.count
        print("watchdog with upload-interval 120: \(pings) pings in 72 s")
        #expect(pings >= 9, "every 5 s and the status work: \(pings)")
        #expect(!daemon.stderr.contains("a loop stopped going round"), "\(daemon.stderr)")
        #expect(messages.suffix(2).allSatisfy { $0.contains("WATCHDOG=1") }, "still pinging at the end: \(messages.suffix(2))")
        daemon.send(SIGTERM)
        #expect(await daemon.waitForExit(timeout: 20))
    }
}

/// The file sink under the daemon: a reload applies a new upload-interval.
@Suite struct FileSinkReloadTests {
    @Test func aReloadAppliesANewUploadIntervalToTheFileSink() async throws {
        let directory = TestPaths.temporaryDirectory("file-sink-reload")
        let gpsd = try await GPSFake.start(log: TestPaths.fixture("drive-seed11-first5min.nmea"), cycle: 0.002, directory: directory)
        defer { gpsd.kill() }
        let state = directory.appendingPathComponent("state").path
        let config = directory.appendingPathComponent("gpstrackd.conf").path
        try "upload-interval = 3600\n".write(toFile: config, atomically: true, encoding: .utf8)
        let daemon = try ChildProcess(TestPaths.gpstrackd, ["--config", config, "--gpsd", gpsd.endpoint, "--state-dir", state,
                                                            "--log-format", "text"], directory: directory, name: "daemon")
        defer { daemon.terminate() }
        let file = state + "/positions.jsonl"
        func lines() -> Int { ((try? String(contentsOfFile: file, encoding: .utf8)) ?? "").split(separator: "\n").count }
        #expect(await ChildProcess.waitUntil(timeout: 60) { daemon.stderr.contains("receiver gone") }, "\(daemon.stderr)")
        try await Task.sleep(for: .seconds(2))
        #expect(lines() == 0, "an hour between writes")
        try "upload-interval = 1\n".write(toFile: config, atomically: true, encoding: .utf8)
        daemon.send(SIGHUP)
        // What was kept so far (the drive is replayed fast; a busy machine keeps fewer) reaches the file.
        #expect(await ChildProcess.waitUntil(timeout: 15) { lines() >= 3 }, "written after the reload: \(lines()) lines; \(daemon.stderr)")
        #expect(daemon.stderr.contains("configuration reloaded: applied upload-interval"))
        daemon.send(SIGTERM)
        #expect(await daemon.waitForExit(timeout: 20))
        #expect(daemon.terminationStatus == 0, "\(daemon.stderr)")
    }
}

