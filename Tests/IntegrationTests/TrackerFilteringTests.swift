import Foundation
import Glibc
import TestSupport
import Testing
import TrackingCore

/// A drive through a real gpsd into the daemon and the emulator, whose tracker filters like the
/// service: what the tracker stores, read back with `gpstrackd history`, scored against the
/// drive's ground truth.
/// Serialized: each case runs gpsd, the daemon and the emulator; eight at once would starve the
/// timing-sensitive tests that share the two cores.
@Suite(.serialized) struct TrackerFilteringTests {
    struct Run {
        var daemon: ChildProcess
        var kept: Int
        var stored: [Location]
        var ignored: Int
        var status: [String: Any]
        /// The Prometheus text the daemon last wrote.
        var metrics: String
        /// Every update the emulator received, as it holds them (`Stored` says whether it kept it).
        var positions: [[String: Any]] = []

        /// The horizontal accuracy of each update the emulator received, as sent.
        var accuraciesSent: [Double] {
            positions.compactMap { (($0["Accuracy"] as? [String: Any])?["Horizontal"] as? NSNumber)?.doubleValue }
        }
    }

    static func truth(_ name: String) throws -> [TrackFidelity.PathPoint] {
        try truth(atPath: TestPaths.fixture(name))
    }

    /// A drive's ground truth (make_drive.py's or make_routes.py's JSON lines).
    static func truth(atPath path: String) throws -> [TrackFidelity.PathPoint] {
        try String(contentsOfFile: path, encoding: .utf8).split(whereSeparator: \.isNewline).compactMap { line in
            guard let object = try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any],
                  let time = (object["time"] as? String).flatMap(FixTime.init(iso8601:)),
                  let lat = (object["lat"] as? NSNumber)?.doubleValue, let lon = (object["lon"] as? NSNumber)?.doubleValue
            else { return nil }
            return .init(time: time, latitude: lat, longitude: lon)
        }
    }

    /// Replays `drive` with the emulator's tracker set to `mode` (nil: leave its default) and the
    /// daemon's `tracker-filtering` given by `setting`.
    static func drive(_ drive: String, emulatorMode: String?, emulatorConfig: [String: Any] = [:], setting: String = "auto",
                      label: String, settings: [String] = [], prepare: (String) throws -> Void = { _ in }) async throws -> Run {
        let directory = TestPaths.temporaryDirectory("filtering-\(label)")
        let emulator = try await TrackerEmulator.start(directory: directory)
        defer { emulator.stop() }
        var config = emulatorConfig
        if let emulatorMode { config["position_filtering"] = emulatorMode }
        if !config.isEmpty { try await emulator.configure(config) }
        // The lead-in (1.6 s at this pace) lets the daemon connect before the drive's first fix.
        let log = try GPSFake.leadIn(TestPaths.fixture(drive), seconds: 400, directory: directory)
        let gpsd = try await GPSFake.start(log: log, cycle: 0.002, directory: directory)
        defer { gpsd.kill() }
        let state = directory.appendingPathComponent("state").path
        try FileManager.default.createDirectory(atPath: state, withIntermediateDirectories: true)
        try prepare(state)
        let environment = ["AWS_ACCESS_KEY_ID=\(TrackerEmulator.accessKey)", "AWS_SECRET_ACCESS_KEY=\(TrackerEmulator.secretKey)",
                           "PATH=/usr/bin:/bin", "HOME=\(directory.path)"]
        let common = ["--tracker", "fleet", "--region", "eu-west-1", "--endpoint", emulator.endpoint.description, "--device-id", "truck-\(label)"]
        let daemon = try ChildProcess("/usr/bin/env", ["-i"] + environment + [TestPaths.gpstrackd, "run", "--config", "/dev/null",
            "--gpsd", gpsd.endpoint, "--state-dir", state, "--upload-interval", "1", "--log-format", "text",
            "--tracker-filtering", setting, "--metrics-file", directory.appendingPathComponent("gpstrackd.prom").path] + settings + common,
            directory: directory, name: "daemon")
        defer { daemon.terminate() }
        let statusPath = state + "/status.json"
        func status() -> [String: Any] {
            (FileManager.default.contents(atPath: statusPath).flatMap { try? JSONSerialization.jsonObject(with: $0) as? [String: Any] }) ?? [:]
        }
        #expect(await ChildProcess.waitUntil(timeout: 90) {
            daemon.stderr.contains("receiver gone") && ((status()["spool"] as? [String: Any])?["queued"] as? NSNumber)?.intValue == 0
        }, "\(daemon.stderr)")
        try await Task.sleep(for: .seconds(1))
        let final = status()
        daemon.send(SIGTERM)
        #expect(await daemon.waitForExit(timeout: 20))
        #expect(daemon.terminationStatus == 0, "\(daemon.stderr)")
        let line = daemon.stderr.split(separator: "\n").first { $0.contains("gpstrackd stopped") } ?? ""
        let kept = Int(line.split(separator: " ").first { $0.hasPrefix("kept=") }?.dropFirst(5) ?? "") ?? -1
        let history = try ChildProcess("/usr/bin/env", ["-i"] + environment + [TestPaths.gpstrackd, "history", "--since", "2020-01-01T00:00:00Z"] + common,
                                       directory: directory, name: "history")
        #expect(await history.waitForExit(timeout: 60))
        #expect(history.terminationStatus == 0, "\(history.stderr)")
        let stored = try history.stdoutLines.map { line -> Location in
            let object = try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
            let time = try #require((object["sampleTime"] as? String).flatMap(FixTime.init(iso8601:)))
            let latitude = try #require((object["latitude"] as? NSNumber)?.doubleValue)
            let longitude = try #require((object["longitude"] as? NSNumber)?.doubleValue)
            return try #require(Location(time: time, mode: .twoD, latitude: latitude, longitude: longitude))
        }
        let all = try await emulator.control("/_emu/positions?all=1")["positions"] as? [[String: Any]] ?? []
        let ignored = all.filter { $0["Stored"] as? Bool == false }.count
        let metrics = (try? String(contentsOfFile: directory.appendingPathComponent("gpstrackd.prom").path, encoding: .utf8)) ?? ""
        return Run(daemon: daemon, kept: kept, stored: stored, ignored: ignored, status: final, metrics: metrics, positions: all)
    }

    @Test(arguments: ["TimeBased", "DistanceBased", "AccuracyBased", "none"])
    func theTrackerStoresEveryPositionSentAndTheTrackStaysNearThePath(mode: String) async throws {
        let run = try await Self.drive("drive-seed7.nmea", emulatorMode: mode, label: mode)
        let fidelity = TrackFidelity(kept: run.stored, path: try Self.truth("drive-seed7.truth.jsonl"))
        let tracker = run.status["tracker"] as? [String: Any] ?? [:]
        print("tracker \(mode) end to end: kept \(run.kept), stored \(run.stored.count), ignored by the tracker \(run.ignored), "
            + "max distance from the true path \(String(format: "%.1f", fidelity.maxDeviation)) m, "
            + "\(String(format: "%.2f", fidelity.pointsPerKilometre))/km, withheld \(tracker["withheld"] ?? "-")")
        #expect(run.ignored == 0, "no position sent is left unstored")
        #expect((tracker["withheld"] as? NSNumber)?.intValue ?? -1 >= (mode == "TimeBased" ? 1 : 0))
        #expect(run.stored.count == run.kept, "every kept position reaches the history")
        #expect(tracker["filtering"] as? String == mode && tracker["source"] as? String == "DescribeTracker", "\(tracker)")
        #expect((tracker["answered"] as? String).flatMap(FixTime.init(iso8601:)) != nil && tracker["askFailure"] == nil,
                "status.json says when the tracker answered: \(tracker)")
        #expect(run.metrics.contains("gpstrackd_tracker_filtering{mode=\"\(mode)\"} 1"), "\(run.metrics)")
        #expect(run.metrics.contains("# TYPE gpstrackd_withheld_total counter"))
        switch mode {
        case "TimeBased":
            #expect(fidelity.maxDeviation <= 110)
            #expect(run.daemon.stderr.contains("aws location update-tracker --tracker-name fleet --position-filtering AccuracyBased"))
        case "DistanceBased":
            #expect(fidelity.maxDeviation <= 12.2, "seed 7: the issue's 12 m, or 1.2x the every-fix floor of 10.1 m")
            #expect(fidelity.pointsPerKilometre <= 4)
        case "AccuracyBased":
            // The receiver's own GST (5-10 m as 2DRMS, against gpsd's 13-27 m) is what the
            // tracker is told: its rule lets the stored points come nearer each other.
            #expect(fidelity.maxDeviation <= 12.1, "seed 7: the issue's 12 m, or 1.2x the every-fix floor of 10.1 m")
            #expect(fidelity.pointsPerKilometre <= 4)
            let accuracies = run.accuraciesSent
            #expect(accuracies.count == run.kept && accuracies.allSatisfy { $0 > 4 && $0 < 11 }, "the GST figures were sent: \(accuracies)")
            #expect(!run.daemon.stderr.contains("--position-filtering DistanceBased"), "no advice to leave AccuracyBased: \(run.daemon.stderr)")
        default:
            #expect(fidelity.maxDeviation <= 12)
        }
        if mode == "DistanceBased" || mode == "none" { #expect(!run.daemon.stderr.contains("update-tracker")) }
    }

    /// The same drive and tracker with gpsd's figures as the accuracies sent (`accuracy-source =
    /// gpsd`; 19 m times the HDOP, 13-27 m here): the tracker keeps the stored points wider than
    /// DistanceBased's 30 m apart, cuts the U-turn, and the daemon says so once, with the command.
    @Test func underAccuracyBasedGPSDsFiguresSpaceThePointsWiderAndTheDaemonSaysSo() async throws {
        let run = try await Self.drive("drive-seed7.nmea", emulatorMode: "AccuracyBased", label: "gpsd-figures", settings: ["--accuracy-source", "gpsd"])
        let fidelity = TrackFidelity(kept: run.stored, path: try Self.truth("drive-seed7.truth.jsonl"))
        print("tracker AccuracyBased end to end with gpsd's figures: kept \(run.kept), stored \(run.stored.count), "
            + "max distance from the true path \(String(format: "%.1f", fidelity.maxDeviation)) m, "
            + "\(String(format: "%.2f", fidelity.pointsPerKilometre))/km")
        #expect(run.ignored == 0, "no position sent is left unstored")
        #expect(run.stored.count == run.kept, "every kept position reaches the history")
        #expect(fidelity.maxDeviation <= 16, "accuracies of 15-25 m at the U-turn: the issue's 12 m is not met this way")
        #expect(fidelity.pointsPerKilometre <= 4)
        let accuracies = run.accuraciesSent
        #expect(accuracies.count == run.kept && accuracies.allSatisfy { $0 >= 11 }, "gpsd's figures were sent: \(accuracies)")
        let advice = run.daemon.stderr.split(separator: "\n").filter { $0.contains("--position-filtering DistanceBased") }
        #expect(advice.count == 1 && advice[0].contains("warning") && advice[0].contains("this receiver reports accuracies of about"),
                "\(run.daemon.stderr)")
    }

    /// Every fix of an NMEA log (its RMC sentences): the track the receiver itself drew, whose
    /// distance from the true path is the floor no choice of its fixes can beat.
    static func everyFix(_ name: String) throws -> [Location] {
        try String(contentsOfFile: TestPaths.fixture(name), encoding: .utf8).split(whereSeparator: \.isNewline).compactMap { line in
            let f = line.split(separator: ",", omittingEmptySubsequences: false).map(String.init)
            guard f.count > 9, f[0] == "$GPRMC", f[2] == "A", let lat = Double(f[3]), let lon = Double(f[5]) else { return nil }
            let (hh, mm, ss) = (f[1].prefix(2), f[1].dropFirst(2).prefix(2), f[1].dropFirst(4))
            let (day, month, year) = (f[9].prefix(2), f[9].dropFirst(2).prefix(2), f[9].dropFirst(4))
            guard let time = FixTime(iso8601: "20\(year)-\(month)-\(day)T\(hh):\(mm):\(ss)Z") else { return nil }
            return Location(time: time, mode: .threeD, latitude: degrees(nmea: lat, f[4]), longitude: degrees(nmea: lon, f[6]))
        }
    }

    /// An NMEA angle (ddmm.mmmm, dddmm.mmmm) and its hemisphere, in degrees.
    static func degrees(nmea value: Double, _ hemisphere: String) -> Double {
        let degrees = (value / 100).rounded(.down) + value.truncatingRemainder(dividingBy: 100) / 60
        return hemisphere == "S" || hemisphere == "W" ? -degrees : degrees
    }

    /// Roads of our own (`make_routes.py --route random --seed 404 | 505`: turns at other
    /// angles, roundabouts, stop-and-go, error bursts), read back from the tracker's history.
    @Test(arguments: ["DistanceBased", "AccuracyBased"], ["404", "505"])
    func onARoadOfOurOwnTheStoredTrackIsTheKeptOneNearThePath(mode: String, road: String) async throws {
        let run = try await Self.drive("route-random\(road)-1hz.nmea", emulatorMode: mode, label: "random\(road)-" + mode)
        let path = try Self.truth("route-random\(road)-1hz.truth.jsonl")
        let fidelity = TrackFidelity(kept: run.stored, path: path)
        let floor = TrackFidelity(kept: try Self.everyFix("route-random\(road)-1hz.nmea"), path: path).maxDeviation
        print("tracker \(mode), random road \(road) end to end: kept \(run.kept), stored \(run.stored.count), ignored \(run.ignored), "
            + "max distance from the true path \(String(format: "%.1f", fidelity.maxDeviation)) m (every recorded fix's track \(String(format: "%.1f", floor)) m), "
            + "\(String(format: "%.2f", fidelity.pointsPerKilometre))/km over \(String(format: "%.1f", fidelity.pathKilometres)) km, "
            + "worst at \(fidelity.worstTime?.iso8601 ?? "-")")
        #expect(run.ignored == 0, "no position sent is left unstored")
        #expect(run.stored.count == run.kept, "every kept position reaches the history")
        // The issue's 12 m, without the every-fix floor: the track through every recorded fix
        // includes those the gate rejects (the unit suites' floor leaves them out), and 12 m is
        // the stricter bound here. Road 505's 560 m curve at 28 m/s, whose fixes stand 6-9 m
        // inside the road for half a minute, was 14.0 m off until the trigger read where the
        // fixes stand (`ReceiverOffset`); 10.6 m since.
        #expect(fidelity.maxDeviation <= 12, "the issue's 12 m")
    }

    @Test func aDeniedDescribeAssumesTimeBasedAndSaysWhichPermissionToAdd() async throws {
        let run = try await Self.drive("drive-seed11-first5min.nmea", emulatorMode: "TimeBased", emulatorConfig: ["describe_denied": true], label: "denied")
        let tracker = run.status["tracker"] as? [String: Any] ?? [:]
        #expect(tracker["filtering"] as? String == "TimeBased")
        #expect((tracker["source"] as? String)?.hasPrefix("assumed") == true, "\(tracker)")
        #expect(run.daemon.stderr.contains("Allow geo:DescribeTracker on arn:aws:geo:<region>:<account>:tracker/fleet"), "\(run.daemon.stderr)")
        #expect(run.ignored == 0)
        #expect(run.stored.count == run.kept)
    }

    @Test func aFailedDescribeKeepsTheLastKnownModeAndUploadsGoOn() async throws {
        // DescribeTracker fails (the service answers 503 to it alone); the state directory
        // remembers DistanceBased from an earlier run.
        let run = try await Self.drive(
            "drive-seed11-first5min.nmea", emulatorMode: "DistanceBased", emulatorConfig: ["describe_failing": true], label: "last-known",
            prepare: { state in
                try #"{"filtering":"DistanceBased"}"#.write(toFile: state + "/tracker.json", atomically: true, encoding: .utf8)
            })
        let tracker = run.status["tracker"] as? [String: Any] ?? [:]
        #expect(tracker["filtering"] as? String == "DistanceBased" && tracker["source"] as? String == "last known", "\(tracker)")
        #expect(run.daemon.stderr.contains("cannot ask tracker 'fleet' for its PositionFiltering"), "\(run.daemon.stderr)")
        #expect(run.daemon.stderr.contains("keeping DistanceBased (last known) and asking again later"))
        #expect(run.ignored == 0)
        #expect(run.stored.count == run.kept, "uploads went on")
    }

    @Test func aTrackerThatDoesNotExistIsSaidAndTheQueueKept() async throws {
        let directory = TestPaths.temporaryDirectory("filtering-missing")
        let emulator = try await TrackerEmulator.start(directory: directory)
        defer { emulator.stop() }
        try await emulator.configure(["tracker_name": "fleet"])
        let state = directory.appendingPathComponent("state").path
        let daemon = try ChildProcess("/usr/bin/env", ["-i", "AWS_ACCESS_KEY_ID=\(TrackerEmulator.accessKey)",
            "AWS_SECRET_ACCESS_KEY=\(TrackerEmulator.secretKey)", "PATH=/usr/bin:/bin", "HOME=\(directory.path)", TestPaths.gpstrackd, "run",
            "--config", "/dev/null", "--gpsd", "127.0.0.1:\(FreePort.next())", "--state-dir", state, "--log-format", "text",
            "--tracker", "flet", "--region", "eu-west-1", "--endpoint", emulator.endpoint.description], directory: directory, name: "daemon")
        defer { daemon.terminate() }
        #expect(await ChildProcess.waitUntil(timeout: 20) { daemon.stderr.contains("for its PositionFiltering") }, "\(daemon.stderr)")
        #expect(daemon.stderr.contains("tracker 'flet' not found"), "\(daemon.stderr)")
        #expect(daemon.stderr.contains("keeping TimeBased (assumed until the tracker answers)"), "\(daemon.stderr)")
        daemon.send(SIGTERM)
        #expect(await daemon.waitForExit(timeout: 20))
        #expect(daemon.terminationStatus == 0)
    }

    @Test func anExplicitModeIsUsedWithoutAsking() async throws {
        let run = try await Self.drive("drive-seed11-first5min.nmea", emulatorMode: "DistanceBased", emulatorConfig: ["describe_denied": true],
                                       setting: "DistanceBased", label: "explicit")
        let tracker = run.status["tracker"] as? [String: Any] ?? [:]
        #expect(tracker["filtering"] as? String == "DistanceBased" && tracker["source"] as? String == "configured", "\(tracker)")
        #expect(!run.daemon.stderr.contains("DescribeTracker"), "not asked: \(run.daemon.stderr)")
        #expect(run.ignored == 0)
        #expect(run.stored.count == run.kept)
    }
}
