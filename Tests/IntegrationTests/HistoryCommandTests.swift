import AWSLocation
import Foundation
import TestSupport
import Testing
import TrackingCore

/// `gpstrackd history` against the emulator: what arrived, as JSON lines and GPX; clear failures.
@Suite struct HistoryCommandTests {
    func run(_ arguments: [String], environment: [String: String], directory: URL) async throws -> ChildProcess {
        let env = environment.map { "\($0.key)=\($0.value)" } + ["HOME=\(directory.path)", "PATH=/usr/bin:/bin"]
        let child = try ChildProcess("/usr/bin/env", ["-i"] + env + [TestPaths.gpstrackd, "history"] + arguments, directory: directory, name: "history")
        #expect(await child.waitForExit(timeout: 60))
        return child
    }

    @Test func printsWhatTheTrackerStored() async throws {
        let directory = TestPaths.temporaryDirectory("history")
        let emulator = try await TrackerEmulator.start(directory: directory)
        defer { emulator.stop() }
        let client = TrackerClient(region: "eu-west-1", endpoint: emulator.endpoint,
                                   credentials: StaticCredentialProvider(emulator.staticCredentials), transport: SocketTransport())
        let updates = (0..<12).map { DevicePositionUpdate(deviceID: "van-3", location: TrackerClientTests.location($0)) }
        _ = try await client.batchUpdateDevicePosition(tracker: "fleet", updates: Array(updates.prefix(10)))
        _ = try await client.batchUpdateDevicePosition(tracker: "fleet", updates: Array(updates.suffix(2)))
        try await emulator.configure(["history_page_size": 5])
        let environment = ["AWS_ACCESS_KEY_ID": TrackerEmulator.accessKey, "AWS_SECRET_ACCESS_KEY": TrackerEmulator.secretKey]
        let common = ["--tracker", "fleet", "--device-id", "van-3", "--region", "eu-west-1", "--endpoint", emulator.endpoint.description,
                      "--since", "2026-11-30T00:00:00Z"]
        let json = try await run(common, environment: environment, directory: directory)
        #expect(json.terminationStatus == 0, "\(json.stderr)")
        let lines = json.stdoutLines
        #expect(lines.count == 12, "all three pages")
        #expect(lines.first?.hasPrefix(#"{"deviceId":"van-3","sampleTime":"2026-11-30T08:00:00.000Z","receivedTime":"#) == true)
        #expect(!json.stderr.contains(TrackerEmulator.secretKey))
        let gpx = try await run(common + ["--format", "gpx"], environment: environment, directory: directory)
        #expect(gpx.terminationStatus == 0)
        #expect(gpx.stdout.contains(#"<trkpt lat="52.5" lon="13.4"><time>2026-11-30T08:00:00.000Z</time></trkpt>"#))
        #expect(gpx.stdout.components(separatedBy: "<trkpt").count - 1 == 12)
    }

    @Test func failsClearlyWithoutCredentialsOrService() async throws {
        let directory = TestPaths.temporaryDirectory("history")
        let noCredentials = try await run(["--tracker", "fleet", "--region", "eu-west-1"], environment: [:], directory: directory)
        #expect(noCredentials.terminationStatus == 78)
        #expect(noCredentials.stderr.contains("no AWS credentials found; tried:"))
        let unreachable = try await run(
            ["--tracker", "fleet", "--region", "eu-west-1", "--endpoint", "http://127.0.0.1:\(FreePort.next())"],
            environment: ["AWS_ACCESS_KEY_ID": "AKIDX", "AWS_SECRET_ACCESS_KEY": "secret-value"], directory: directory)
        #expect(unreachable.terminationStatus == 69)
        #expect(unreachable.stderr.contains("cannot reach http://127.0.0.1:"))
        #expect(!unreachable.stderr.contains("secret-value"))
        let plain = try await run(["--tracker", "fleet", "--endpoint", "http://192.0.2.1:80"], environment: [:], directory: directory)
        #expect(plain.terminationStatus == 64)
        #expect(plain.stderr.contains("plain http, which is allowed only for loopback test endpoints"))
    }
}
