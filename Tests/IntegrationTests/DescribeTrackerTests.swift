import AWSLocation
import Foundation
import Testing
import TrackingCore

/// DescribeTracker against the project's emulator, and the emulator's PositionFiltering itself.
@Suite struct DescribeTrackerTests {
    func client(_ emulator: TrackerEmulator) -> TrackerClient {
        TrackerClient(region: "eu-west-1", endpoint: emulator.endpoint,
                      credentials: StaticCredentialProvider(emulator.staticCredentials), transport: SocketTransport())
    }

    @Test func learnsEachModeAndSaysWhyWhenItCannot() async throws {
        let emulator = try await TrackerEmulator.start(directory: TestPaths.temporaryDirectory("describe"))
        defer { emulator.stop() }
        let tracker = client(emulator)
        #expect(try await tracker.describeTracker("fleet") == TrackerFiltering.none)
        for mode in [TrackerFiltering.timeBased, .distanceBased, .accuracyBased] {
            try await emulator.configure(["position_filtering": mode.rawValue])
            #expect(try await tracker.describeTracker("fleet") == mode)
        }
        try await emulator.configure(["describe_denied": true])
        await #expect {
            _ = try await tracker.describeTracker("fleet")
        } throws: { error in
            guard case let .accessDenied(operation, _, _)? = error as? TrackerError else { return false }
            return operation == "DescribeTracker"
        }
        try await emulator.configure(["describe_denied": false, "tracker_name": "fleet"])
        await #expect {
            _ = try await tracker.describeTracker("flet")
        } throws: { error in
            if case .resourceNotFound? = error as? TrackerError { return true }
            return false
        }
    }

    @Test func theControlPlaneHasItsOwnHostUnlessAnEndpointIsSet() {
        let plain = TrackerClient(region: "eu-west-1", credentials: StaticCredentialProvider(
            Credentials(accessKeyID: "a", secretAccessKey: "b", source: "test")), transport: SocketTransport())
        #expect(plain.controlEndpoint.description == "https://cp.tracking.geo.eu-west-1.amazonaws.com")
        #expect(plain.endpoint.description == "https://tracking.geo.eu-west-1.amazonaws.com")
    }

    @Test func theEmulatorStoresWhatTheServiceWouldAndShowsWhatItIgnored() async throws {
        let emulator = try await TrackerEmulator.start(directory: TestPaths.temporaryDirectory("filtering"))
        defer { emulator.stop() }
        try await emulator.configure(["position_filtering": "TimeBased"])
        let start = FixTime(iso8601: "2026-11-30T08:00:00Z")!
        let updates = (0..<10).map { n in
            DevicePositionUpdate(deviceID: "t", sampleTime: start.adding(seconds: Double(n * 10)), longitude: 13.4, latitude: 52.5)
        }
        _ = try await client(emulator).batchUpdateDevicePosition(tracker: "fleet", updates: updates)
        let stored = try await emulator.positions().compactMap { $0["SampleTime"] as? String }
        #expect(stored == ["2026-11-30T08:00:00Z", "2026-11-30T08:00:30Z", "2026-11-30T08:01:00Z", "2026-11-30T08:01:30Z"])
        let all = try await emulator.control("/_emu/positions?all=1")["positions"] as? [[String: Any]] ?? []
        #expect(all.count == 10)
        #expect(all.filter { $0["Stored"] as? Bool == false }.count == 6)
    }
}
