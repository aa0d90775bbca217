import Foundation
import Glibc
import Testing
import TestSupport
import Uploader

/// The daemon on a small state filesystem that another program fills while the tracker is away:
/// every kept position reaches the tracker or is counted as thinned, and the operator hears once.
@Suite struct DiskFullTests {
    static func status(_ state: String) -> [String: Any]? {
        guard let data = FileManager.default.contents(atPath: state + "/status.json") else { return nil }
        return try? JSONSerialization.jsonObject(with: data) as? [String: Any]
    }

    static func number(_ object: [String: Any]?, _ section: String, _ key: String) -> Int {
        ((object?[section] as? [String: Any])?[key] as? NSNumber)?.intValue ?? -1
    }

    @Test func aDiskFilledForThirtySecondsLosesNoPositionAndSaysSoOnce() async throws {
        guard getuid() == 0 else {
            print("skipped: mounting a 16 MB tmpfs needs root")
            return
        }
        let directory = TestPaths.temporaryDirectory("disk-full")
        let mount = try ScratchFilesystem(megabytes: 16)
        defer { mount.remove() }
        let emulator = try await TrackerEmulator.start(directory: directory)
        defer { emulator.stop() }
        try await emulator.configure(["error_rate": 1.0])
        // Five minutes of drive, a fix every 0.3 s; every fix is kept (heartbeats of a second).
        let gpsd = try await GPSFake.start(log: TestPaths.fixture("drive-seed11-first5min.nmea"), cycle: 0.05, directory: directory)
        defer { gpsd.kill() }
        let state = mount.path
        let daemon = try ChildProcess("/usr/bin/env", [
            "-i", "AWS_ACCESS_KEY_ID=\(TrackerEmulator.accessKey)", "AWS_SECRET_ACCESS_KEY=\(TrackerEmulator.secretKey)",
            "PATH=/usr/bin:/bin", "HOME=\(directory.path)", TestPaths.gpstrackd, "run",
            "--config", "/dev/null", "--gpsd", gpsd.endpoint, "--state-dir", state, "--tracker", "fleet", "--region", "eu-west-1",
            "--endpoint", emulator.endpoint.description, "--upload-interval", "1", "--log-format", "text",
            "--max-interval", "1", "--stationary-interval", "1", "--min-interval", "0", "--tracker-filtering", "none",
        ], directory: directory, name: "daemon")
        defer { daemon.terminate() }
        #expect(await ChildProcess.waitUntil(timeout: 60) { Self.number(Self.status(state), "filter", "kept") >= 40 }, "\(daemon.stderr)")
        let keptBeforeFill = Self.number(Self.status(state), "filter", "kept")
        let filler = mount.fill()
        try await Task.sleep(for: .seconds(25))
        // The status file is not frozen while the disk is full (the reserve's room serves it too).
        let duringFill = Self.status(state)
        #expect(Self.number(duringFill, "filter", "kept") > keptBeforeFill + 40, "status goes on: \(String(describing: duringFill))")
        try await Task.sleep(for: .seconds(5))
        try FileManager.default.removeItem(atPath: filler)
        try await emulator.configure(["error_rate": 0.0])
        // The tracker failed every request for the first 45 s or so: the retry after the last
        // failure may by design come as late as the backoff's cap (full jitter; after seven or
        // eight failures up to 128 s), so the queue is given that long to drain.
        #expect(await ChildProcess.waitUntil(timeout: RetryPolicy().cap + 30) {
            daemon.stderr.contains("receiver gone") && Self.number(Self.status(state), "spool", "queued") == 0
        }, "\(daemon.stderr)")
        let final = Self.status(state)
        daemon.send(SIGTERM)
        #expect(await daemon.waitForExit(timeout: 30))
        #expect(daemon.terminationStatus == 0, "\(daemon.stderr)")
        let line = daemon.stderr.split(separator: "\n").first { $0.contains("gpstrackd stopped") } ?? ""
        let kept = Int(line.split(separator: " ").first { $0.hasPrefix("kept=") }?.dropFirst(5) ?? "") ?? -1
        let evictions = Self.number(final, "spool", "evictions")
        let arrived = try await emulator.positions().compactMap { $0["SampleTime"] as? String }
        print("disk full end to end: kept \(kept) (\(keptBeforeFill) before the fill), arrived \(arrived.count), evictions \(evictions), "
            + "store failures \(Self.number(final, "spool", "storeFailures"))")
        #expect(kept > keptBeforeFill + 60, "positions kept while the disk was full")
        #expect(arrived.count + evictions == kept, "delivered + counted evictions = kept")
        #expect(evictions == 0, "30 s of positions fit in the spool's reserve: nothing is thinned")
        #expect(Set(arrived).count == arrived.count, "no duplicates")
        let said = { (words: String) in daemon.stderr.components(separatedBy: words).count - 1 }
        #expect(said("gave up the spool's reserve") == 1, "the full disk is said once: \(daemon.stderr)")
        #expect(said("the disk has room again") == 1, "and its end once")
        #expect(!daemon.stderr.contains("could not store a position"), "\(daemon.stderr)")
    }
}
