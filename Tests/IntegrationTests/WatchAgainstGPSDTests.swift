import Foundation
import Glibc
import TestSupport
import Testing

/// `gpstrackd watch` against a real gpsd (gpsfake) on real receiver logs and a generated drive,
/// checked against gpsd's own TPV stream read by `gpspipe` in the same session.
@Suite("watch against a real gpsd", .serialized)
struct WatchAgainstGPSDTests {
    struct Case: CustomStringConvertible, Sendable {
        var log: String
        var cycle: Double
        var expectsHeading: Bool
        var description: String { log }
    }

    static let cases: [Case] = [
        Case(log: "hemi.log", cycle: 0.01, expectsHeading: true),
        Case(log: "telit-he910.log", cycle: 0.004, expectsHeading: false),
        Case(log: "quectel-l76k-nmea.log", cycle: 0.003, expectsHeading: false),
        Case(log: "ublox-zed-f9p_hpg1.11.log", cycle: 0.001, expectsHeading: false),
        Case(log: "drive-seed7.nmea", cycle: 0.002, expectsHeading: true),
    ]

    @Test("one Location per distinct fix time, as gpsd reports them", arguments: cases)
    func watchMatchesGPSDOwnStream(_ testCase: Case) async throws {
        let directory = TestPaths.temporaryDirectory("watch")
        let gpsd = try await GPSFake.start(log: TestPaths.fixture(testCase.log), cycle: testCase.cycle, directory: directory)
        defer { gpsd.kill() }
        let reference = try ChildProcess("/usr/bin/gpspipe", ["-w", gpsd.endpoint], directory: directory, name: "gpspipe")
        defer { reference.terminate() }
        _ = await ChildProcess.waitUntil(timeout: 5) { reference.stdout.contains("\"class\":\"WATCH\"") }
        let watch = try ChildProcess(TestPaths.gpstrackd, ["watch", "--gpsd", gpsd.endpoint], directory: directory, name: "watch")
        defer { watch.terminate() }

        // gpsfake removes the device (DEVICE "activated":0) when the log is exhausted.
        let finished = await ChildProcess.waitUntil(timeout: 120) {
            reference.stdout.contains(#""activated":0"#)
        }
        #expect(finished, "gpsfake did not finish the log")
        _ = await ChildProcess.waitUntil(timeout: 5) { watch.stderr.contains("receiver gone") }
        watch.send(SIGINT)
        let started = Date()
        let exited = await watch.waitForExit(timeout: 5)
        let stopSeconds = Date().timeIntervalSince(started)
        #expect(exited && watch.terminationStatus == 0, "watch exit: \(watch.terminationStatus)\n\(watch.stderr)")
        // At once, not after a backoff or the 10 s no-data timeout (room for a machine running the suite).
        #expect(stopSeconds < 3.0, "watch took \(stopSeconds) s to stop on SIGINT")

        let session = GPSDReference(jsonLines: reference.stdout)
        let gpsdEpochs = session.epochs
        let locations = try watch.stdoutLines.map(WatchLine.init)
        let times = locations.map(\.time)
        #expect(!locations.isEmpty, "no Location from \(testCase.log):\n\(watch.stderr)")
        #expect(gpsdEpochs.count > 0)

        // Strictly increasing fix times.
        for (earlier, later) in zip(times, times.dropFirst()) {
            #expect(earlier < later, "time \(later) does not follow \(earlier)")
        }
        // Exactly gpsd's epochs: every Location is one of them, and every gpsd epoch from the
        // moment watch was connected is present. gpspipe connects first, so it may see up to two
        // epochs before watch's first.
        let watchTimes = Set(times)
        #expect(watchTimes.count == times.count, "a fix time appears twice")
        for location in locations {
            guard let epoch = gpsdEpochs[location.gpsdTime] else {
                Issue.record("Location at \(location.time) is not a gpsd epoch")
                continue
            }
            #expect(location.mode == epoch.mode, "mode at \(location.time)")
            if let lat = epoch.latitude, let lon = epoch.longitude {
                #expect(abs(location.latitude - lat) < 1e-9 && abs(location.longitude - lon) < 1e-9,
                        "position at \(location.time): \(location.latitude),\(location.longitude) vs gpsd \(lat),\(lon)")
            }
        }
        let sessionOrder = session.order.map(WatchLine.normalized)
        let missing = sessionOrder.filter { !watchTimes.contains($0) }
        // Every epoch from watch's first on, in the order gpsd reported them, is there, but for
        // one whose time steps back (the Telit's, 0.3 s once: watch's times only increase).
        // Those before watch's first went by while it was still connecting (gpspipe connects
        // first; on a busy machine watch a few seconds later): how many is the machine's load,
        // not watch's doing, so they are not counted against it.
        let firstSeen = times.first.flatMap { sessionOrder.firstIndex(of: $0) } ?? sessionOrder.count
        var latest = ""
        let missedAfterFirst = sessionOrder[firstSeen...].filter { time in
            defer { latest = max(latest, time) }
            return time > latest && !watchTimes.contains(time)
        }
        #expect(missedAfterFirst.isEmpty, "gpsd epochs missing from watch: \(missedAfterFirst.prefix(10))")
        #expect(!times.isEmpty && missing.count < gpsdEpochs.count / 2, "watch saw most of the session: \(missing.count) missing")

        // No NaN, nothing negative that cannot be.
        for location in locations {
            #expect((-90...90).contains(location.latitude) && (-180...180).contains(location.longitude))
            for key in ["speed", "course", "heading", "horizontalAccuracy", "verticalAccuracy", "speedAccuracy", "courseAccuracy"] {
                if let value = location.numbers[key] {
                    #expect(value.isFinite && value >= 0, "\(key)=\(value) at \(location.time)")
                }
            }
            for key in ["course", "heading"] {
                if let value = location.numbers[key] { #expect(value < 360) }
            }
        }
        let headings = locations.filter { $0.numbers["heading"] != nil }
        if testCase.expectsHeading {
            #expect(!headings.isEmpty, "no heading although the log has HDT")
        } else {
            #expect(headings.isEmpty)
        }
    }

    /// A u-blox receiver gpsd reads in its binary protocol: each fix's accuracy is the receiver's
    /// own estimate of itself (NAV-PVT's `hAcc`, a few metres), where for the NMEA logs above
    /// gpsd 3.22 has only 19 m times the HDOP. It is what an AccuracyBased tracker sums.
    @Test("a binary u-blox receiver's own accuracy estimates reach the Location")
    func binaryReceiverAccuracyIsTheReceiversOwn() async throws {
        let directory = TestPaths.temporaryDirectory("navpvt")
        let start = Date(timeIntervalSince1970: 1_793_520_000)  // 2026-11-01T08:00:00Z
        // Five seconds of searching at this pace, so that watch is connected before the first fix.
        let searching = (0..<250).map { second in
            NavPVTLog.Epoch(time: start.addingTimeInterval(Double(second - 250)), latitude: 0, longitude: 0, speed: 0, course: 0,
                            horizontalAccuracyMillimetres: 0, verticalAccuracyMillimetres: 0, speedAccuracyMillimetresPerSecond: 0, fixed: false)
        }
        var fixes: [NavPVTLog.Epoch] = []
        for second in 0..<30 {
            let step = Double(second), count = UInt32(second)
            fixes.append(NavPVTLog.Epoch(
                time: start.addingTimeInterval(step), latitude: 52.5163 + 1e-5 * step, longitude: 13.3777 + 1.5e-5 * step,
                speed: 5.1, course: 41, horizontalAccuracyMillimetres: 2_345 + 137 * count,
                verticalAccuracyMillimetres: 5_200 + 10 * count, speedAccuracyMillimetresPerSecond: 400 + 10 * count))
        }
        let log = directory.appendingPathComponent("navpvt.ubx").path
        try NavPVTLog(epochs: searching + fixes).write(to: log)
        let gpsd = try await GPSFake.start(log: log, cycle: 0.02, directory: directory)
        defer { gpsd.kill() }
        let watch = try ChildProcess(TestPaths.gpstrackd, ["watch", "--gpsd", gpsd.endpoint], directory: directory, name: "watch")
        defer { watch.terminate() }
        #expect(await ChildProcess.waitUntil(timeout: 60) { watch.stderr.contains("receiver gone") }, "\(watch.stderr)")
        watch.send(SIGTERM)
        #expect(await watch.waitForExit(timeout: 5) && watch.terminationStatus == 0)
        let iso = ISO8601DateFormatter()
        iso.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        let byTime: [String: NavPVTLog.Epoch] = Dictionary(uniqueKeysWithValues: fixes.map { (iso.string(from: $0.time), $0) })
        let locations = try watch.stdoutLines.map(WatchLine.init)
        #expect(locations.count >= 25, "\(locations.count) of 30 fixes:\n\(watch.stderr)")
        for location in locations {
            let epoch = try #require(byTime[location.time], "\(location.time) is not one of the log's fixes")
            #expect(location.numbers["horizontalAccuracy"] == Double(epoch.horizontalAccuracyMillimetres) / 1000, "at \(location.time)")
            #expect(location.numbers["verticalAccuracy"] == Double(epoch.verticalAccuracyMillimetres) / 1000, "at \(location.time)")
            #expect(location.numbers["speedAccuracy"] == Double(epoch.speedAccuracyMillimetresPerSecond) / 1000, "at \(location.time)")
            #expect(abs(location.latitude - epoch.latitude) < 1e-7 && abs(location.longitude - epoch.longitude) < 1e-7)
            #expect(location.numbers["speed"] == 5.1 && location.numbers["course"] == 41)
        }
        // 2.3-6.3 m, a median of 4: AccuracyBased would keep this receiver's points about 8 m apart.
        #expect(watch.stderr.contains("about 8 m apart, nearer than DistanceBased's 30 m; "
            + "for this receiver, create or update the tracker with --position-filtering AccuracyBased"), "\(watch.stderr)")
    }

    /// make_drive's receiver sends GST each second (its 1-sigma errors, 1.8-3.5 m an axis), which
    /// gpsd 3.22 leaves out of the TPV's `eph` (19 m times the HDOP). Two watches read the same
    /// gpsd: by default (`--accuracy-source gst`) each fix's accuracy is its own second's GST as
    /// 2DRMS, with gpsd's figure beside it as `filterAccuracy`; with `--accuracy-source gpsd`,
    /// gpsd's figure alone.
    @Test("by default a fix's accuracy is the receiver's GST of its own second, gpsd's figure beside it")
    func gstGivesTheAccuracyOfItsOwnSecond() async throws {
        let log = TestPaths.fixture("drive-seed7.nmea")
        var gstBySecond: [String: Double] = [:]
        for line in try String(contentsOfFile: log, encoding: .utf8).split(separator: "\n") where line.hasPrefix("$GPGST") {
            let fields = line.split(separator: "*")[0].split(separator: ",", omittingEmptySubsequences: false)
            guard fields.count > 7, let latitude = Double(fields[6]), let longitude = Double(fields[7]) else { continue }
            gstBySecond[String(fields[1].prefix(6))] = (200 * (latitude * latitude + longitude * longitude).squareRoot()).rounded() / 100
        }
        #expect(gstBySecond.count > 800, "the log's GST sentences")
        let directory = TestPaths.temporaryDirectory("gst")
        let gpsd = try await GPSFake.start(log: log, cycle: 0.002, directory: directory)
        defer { gpsd.kill() }
        let own = try ChildProcess(TestPaths.gpstrackd, ["watch", "--gpsd", gpsd.endpoint],
                                   directory: directory, name: "watch-gst")
        defer { own.terminate() }
        let gpsdFigure = try ChildProcess(TestPaths.gpstrackd, ["watch", "--gpsd", gpsd.endpoint, "--accuracy-source", "gpsd"],
                                          directory: directory, name: "watch")
        defer { gpsdFigure.terminate() }
        for watch in [own, gpsdFigure] {
            #expect(await ChildProcess.waitUntil(timeout: 60) { watch.stderr.contains("receiver gone") }, "\(watch.stderr)")
            watch.send(SIGTERM)
            #expect(await watch.waitForExit(timeout: 5) && watch.terminationStatus == 0)
        }
        func key(_ location: WatchLine) -> String { location.time.dropFirst(11).prefix(8).replacingOccurrences(of: ":", with: "") }
        let withGST = try own.stdoutLines.map(WatchLine.init)
        #expect(withGST.count > 700, "\(withGST.count) fixes:\n\(own.stderr)")
        for location in withGST {
            #expect(location.numbers["horizontalAccuracy"] == gstBySecond[key(location)], "accuracy at \(location.time)")
        }
        let fromGPSD = try gpsdFigure.stdoutLines.map(WatchLine.init)
        let differing = fromGPSD.filter { $0.numbers["horizontalAccuracy"] != gstBySecond[key($0)] }
        #expect(fromGPSD.count > 700 && differing.count == fromGPSD.count, "gpsd's figure with --accuracy-source gpsd")
        #expect(fromGPSD.allSatisfy { $0.numbers["filterAccuracy"] == nil }, "one figure: nothing beside it")
        // The same fixes: with GST, gpsd's figure is the filter's, beside the one reported.
        let gpsdBySecond = Dictionary(fromGPSD.map { (key($0), $0.numbers["horizontalAccuracy"]) }, uniquingKeysWith: { a, _ in a })
        let matched = withGST.filter { gpsdBySecond[key($0)] != nil }
        #expect(matched.count > 700 && matched.allSatisfy { $0.numbers["filterAccuracy"] == gpsdBySecond[key($0)]! },
                "gpsd's figure as filterAccuracy")
        #expect(own.stderr.contains("error_estimates="), "the summary counts them: \(own.stderr)")
        // A median near 7 m: AccuracyBased would keep this receiver's points about 14 m apart.
        #expect(own.stderr.contains("nearer than DistanceBased's 30 m; for this receiver, create or update the tracker with "
            + "--position-filtering AccuracyBased"), "\(own.stderr)")
        #expect(own.stderr.contains("(its own, from NMEA GST) over"), "whose figures: \(own.stderr)")
    }

    @Test("headings are the receiver's HDT of the same second")
    func headingMatchesHDTOfSameEpoch() async throws {
        let log = TestPaths.fixture("drive-seed7.nmea")
        var hdtBySecond: [String: Double] = [:]
        var second: String?
        for line in try String(contentsOfFile: log, encoding: .utf8).split(separator: "\n") {
            let fields = line.split(separator: ",", omittingEmptySubsequences: false)
            if line.hasPrefix("$GPRMC"), fields.count > 1 { second = String(fields[1].prefix(6)) }
            if line.hasPrefix("$GPHDT"), fields.count > 1, let second, let value = Double(fields[1]) {
                hdtBySecond[second] = value
            }
        }
        let directory = TestPaths.temporaryDirectory("heading")
        let gpsd = try await GPSFake.start(log: log, cycle: 0.002, directory: directory)
        defer { gpsd.kill() }
        let watch = try ChildProcess(TestPaths.gpstrackd, ["watch", "--gpsd", gpsd.endpoint, "--accuracy-source", "gpsd"],
                                     directory: directory, name: "watch")
        defer { watch.terminate() }
        #expect(await ChildProcess.waitUntil(timeout: 60) { watch.stderr.contains("receiver gone") })
        watch.send(SIGTERM)
        #expect(await watch.waitForExit(timeout: 5) && watch.terminationStatus == 0)
        let locations = try watch.stdoutLines.map(WatchLine.init)
        // gpsd's NMEA figure reported (19 m times the HDOP): AccuracyBased would space the points wider than 30 m.
        #expect(watch.stderr.contains("--position-filtering DistanceBased") && watch.stderr.contains("wider than DistanceBased's 30 m")
                && watch.stderr.contains("(gpsd's figure) over"), "\(watch.stderr)")
        let withHeading = locations.filter { $0.numbers["heading"] != nil }
        #expect(withHeading.count > locations.count * 9 / 10, "\(withHeading.count) of \(locations.count) have a heading")
        for location in withHeading {
            let key = location.time.dropFirst(11).prefix(8).replacingOccurrences(of: ":", with: "")
            #expect(location.numbers["heading"] == hdtBySecond[key], "heading at \(location.time)")
        }
    }
}

/// One line of `gpstrackd watch` output, parsed with Foundation's JSON parser (which rejects NaN).
struct WatchLine {
    var time: String
    var mode: Int
    var latitude: Double
    var longitude: Double
    var numbers: [String: Double]
    var device: String?
    /// The trigger, on `watch --filter` lines.
    var kept: String?

    /// gpsd writes times with milliseconds and "Z", as watch does; kept as a hook should either change.
    var gpsdTime: String { time }
    static func normalized(_ time: String) -> String { time }

    init(_ line: String) throws {
        guard let object = try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any],
              let time = object["time"] as? String, let mode = object["mode"] as? String,
              let latitude = (object["latitude"] as? NSNumber)?.doubleValue,
              let longitude = (object["longitude"] as? NSNumber)?.doubleValue
        else { throw GPSFakeError(message: "not a Location line: \(line)") }
        self.time = time
        self.mode = mode == "3d" ? 3 : (mode == "2d" ? 2 : 0)
        self.latitude = latitude
        self.longitude = longitude
        numbers = object.compactMapValues { ($0 as? NSNumber)?.doubleValue }
        device = object["device"] as? String
        kept = object["kept"] as? String
    }
}
