import AWSLocation
import Foundation
import Synchronization
import Testing
import TrackingCore

/// The tracker client against the project's emulator, whose signature check is botocore's.
@Suite struct TrackerClientTests {
    static let start = FixTime(iso8601: "2026-11-30T08:00:00Z")!

    static func location(_ n: Int) -> Location {
        Location(time: start.adding(seconds: Double(n)), mode: .threeD, latitude: 52.5 + Double(n) * 1e-4,
                 longitude: 13.4 + Double(n) * 1e-4, course: Double(n * 10 % 360), speed: 8.5, horizontalAccuracy: 3.5)!
    }

    func client(_ emulator: TrackerEmulator, credentials: any CredentialProvider, now: @escaping @Sendable () -> FixTime = SystemClock.now) -> TrackerClient {
        TrackerClient(region: "eu-west-1", endpoint: emulator.endpoint, credentials: credentials, transport: SocketTransport(), now: now)
    }

    @Test func uploadsAndReadsBackTheHistory() async throws {
        let emulator = try await TrackerEmulator.start(directory: TestPaths.temporaryDirectory("tracker"))
        defer { emulator.stop() }
        let tracker = client(emulator, credentials: StaticCredentialProvider(emulator.staticCredentials))
        var sent: [DevicePositionUpdate] = []
        for batch in 0..<3 {
            let updates = (0..<10).map { DevicePositionUpdate(deviceID: "truck 7", location: Self.location(batch * 10 + $0)) }
            let errors = try await tracker.batchUpdateDevicePosition(tracker: "fleet", updates: updates)
            #expect(errors.isEmpty)
            sent += updates
        }
        let stored = try await emulator.positions()
        #expect(stored.count == 30)
        #expect(stored.first?["SampleTime"] as? String == "2026-11-30T08:00:00Z", "the fix time, never the upload time")
        #expect((stored.first?["PositionProperties"] as? [String: String]) == ["speed": "8.5", "course": "0"])
        try await emulator.configure(["history_page_size": 7])
        let history = try await tracker.getDevicePositionHistory(
            tracker: "fleet", device: "truck 7", start: Self.start, end: Self.start.adding(seconds: 25))
        #expect(history.map(\.sampleTime) == (0..<25).map { Self.location($0).time }, "all pages, in order")
        #expect(history.first?.horizontalAccuracy == 3.5)
        #expect(history.first?.longitude == 13.4 && history.first?.latitude == 52.5)
        let latest = try await tracker.getDevicePosition(tracker: "fleet", device: "truck 7")
        #expect(latest.sampleTime == Self.location(29).time)
        #expect(try await emulator.stat("signature_failures") == 0)
    }

    /// Every byte of a request crosses a metered link: the head carries what the service reads
    /// and nothing else, the signature covers only the headers SigV4 requires (each signed name
    /// travels again in `Authorization`), and a whole-second fix time goes without its `.000`, as
    /// botocore writes it.
    @Test func theRequestCarriesOnlyWhatTheServiceReads() async throws {
        let emulator = try await TrackerEmulator.start(directory: TestPaths.temporaryDirectory("tracker-head"))
        defer { emulator.stop() }
        let tracker = client(emulator, credentials: StaticCredentialProvider(emulator.staticCredentials))
        var fractional = Self.location(1)
        fractional.time = Self.start.adding(seconds: 1.25)
        let updates = [Self.location(0), fractional].map { DevicePositionUpdate(deviceID: "truck 8", location: $0) }
        #expect(try await tracker.batchUpdateDevicePosition(tracker: "fleet", updates: updates).isEmpty)
        let head = try await emulator.control("/_emu/headers")
        #expect(head["headers"] as? [String] == ["Host", "Content-Type", "X-Amz-Date", "Authorization", "Content-Length"])
        #expect(head["signed"] as? String == "host;x-amz-date")
        let stored = try await emulator.positions()
        #expect(stored.map { $0["SampleTime"] as? String } == ["2026-11-30T08:00:00Z", "2026-11-30T08:00:01.250Z"])
        let history = try await tracker.getDevicePositionHistory(
            tracker: "fleet", device: "truck 8", start: Self.start, end: Self.start.adding(seconds: 5))
        #expect(history.map(\.sampleTime) == updates.map(\.sampleTime), "both read back as the fix times sent")
        #expect(try await emulator.stat("signature_failures") == 0)
    }

    @Test func aWrongSecretIsASignatureMismatch() async throws {
        let emulator = try await TrackerEmulator.start(directory: TestPaths.temporaryDirectory("tracker"))
        defer { emulator.stop() }
        var wrong = emulator.staticCredentials
        wrong.secretAccessKey = "not-the-secret"
        let tracker = client(emulator, credentials: StaticCredentialProvider(wrong))
        await #expect {
            _ = try await tracker.batchUpdateDevicePosition(tracker: "fleet", updates: [DevicePositionUpdate(deviceID: "d", location: Self.location(0))])
        } throws: { error in
            guard case .signatureMismatch = error as? TrackerError else { return false }
            return "\(error)".contains("the secret access key does not belong to the access key id") && !"\(error)".contains("not-the-secret")
        }
        #expect(try await emulator.stat("signature_failures") == 1)
        #expect(try await emulator.positions().isEmpty)
    }

    @Test func aMissingSessionTokenIsRejected() async throws {
        let directory = TestPaths.temporaryDirectory("tracker")
        let emulator = try await TrackerEmulator.start(directory: directory)
        defer { emulator.stop() }
        let cognito = try CognitoGuestCredentials(
            identityPoolID: "eu-west-1:pool", endpoint: emulator.endpoint, identityFile: nil, transport: SocketTransport())
        var credentials = try await cognito.fetch()
        credentials.sessionToken = nil
        let tracker = client(emulator, credentials: StaticCredentialProvider(credentials))
        await #expect {
            _ = try await tracker.getDevicePosition(tracker: "fleet", device: "d")
        } throws: { error in
            if case .invalidCredentials = error as? TrackerError { return true }
            return false
        }
    }

    @Test func aClockSevenMinutesOffIsNamed() async throws {
        let emulator = try await TrackerEmulator.start(directory: TestPaths.temporaryDirectory("tracker"))
        defer { emulator.stop() }
        let tracker = client(emulator, credentials: StaticCredentialProvider(emulator.staticCredentials)) {
            SystemClock.now().adding(seconds: -420)
        }
        await #expect {
            _ = try await tracker.batchUpdateDevicePosition(tracker: "fleet", updates: [DevicePositionUpdate(deviceID: "d", location: Self.location(0))])
        } throws: { error in
            guard case let .clockSkew(offset, _) = error as? TrackerError, let offset else { return false }
            return abs(offset - 420) < 5 && "\(error)".hasPrefix("clock is 7 min off; the request signature is only valid for 5 min — is NTP running?")
        }
        #expect(try await emulator.stat("skewed") == 1)
    }

    @Test func cognitoCredentialsAreRefreshedWhenTheyExpire() async throws {
        let directory = TestPaths.temporaryDirectory("cognito")
        let emulator = try await TrackerEmulator.start(directory: directory)
        defer { emulator.stop() }
        try await emulator.configure(["credential_ttl_s": 1])
        let identityFile = directory.appendingPathComponent("cognito-identity-id").path
        let cognito = try CognitoGuestCredentials(
            identityPoolID: "eu-west-1:pool", endpoint: emulator.endpoint, identityFile: identityFile, transport: SocketTransport())
        // A client clock 30 s behind believes the 1-second credentials are still good, so the
        // service's "expired" answer must trigger the refresh and the one retry.
        let provider = RefreshingCredentials(refreshAhead: 0, now: { SystemClock.now().adding(seconds: -30) }) { () async throws(CredentialError) -> Credentials in
            try await cognito.fetch()
        }
        let tracker = client(emulator, credentials: provider)
        let update = { (n: Int) in [DevicePositionUpdate(deviceID: "guest", location: Self.location(n))] }
        #expect(try await tracker.batchUpdateDevicePosition(tracker: "fleet", updates: update(0)).isEmpty)
        try await Task.sleep(for: .milliseconds(1300))
        #expect(try await tracker.batchUpdateDevicePosition(tracker: "fleet", updates: update(1)).isEmpty)
        #expect(try await emulator.stat("expired") == 1)
        #expect(try await emulator.stat("credentials_issued") == 2)
        #expect(await provider.refreshCount == 2)
        #expect(try await emulator.positions().count == 2)
        // The identity is kept in the state directory: a restarted daemon asks for no new one.
        #expect(try await emulator.stat("identities") == 1)
        let stored = try String(contentsOfFile: identityFile, encoding: .utf8)
        #expect(stored.hasPrefix("eu-west-1:"))
        _ = try await CognitoGuestCredentials(
            identityPoolID: "eu-west-1:pool", endpoint: emulator.endpoint, identityFile: identityFile, transport: SocketTransport()).fetch()
        #expect(try await emulator.stat("identities") == 1)
    }

    @Test func perItemErrorsAreReturned() async throws {
        let emulator = try await TrackerEmulator.start(directory: TestPaths.temporaryDirectory("tracker"))
        defer { emulator.stop() }
        try await emulator.configure(["item_errors": ["bad-device": "ValidationError", "busy-device": "ThrottlingError"]])
        let tracker = client(emulator, credentials: StaticCredentialProvider(emulator.staticCredentials))
        let updates = ["good", "bad-device", "busy-device"].enumerated().map { DevicePositionUpdate(deviceID: $0.element, location: Self.location($0.offset)) }
        let errors = try await tracker.batchUpdateDevicePosition(tracker: "fleet", updates: updates)
        #expect(errors.map(\.deviceID) == ["bad-device", "busy-device"])
        #expect(errors.map(\.code) == ["ValidationError", "ThrottlingError"])
        #expect(errors.map(\.isRetryable) == [false, true])
        #expect(errors.first?.sampleTime == Self.location(1).time)
        #expect(try await emulator.positions().count == 1)
    }

    @Test func throttlingIsATypedError() async throws {
        let emulator = try await TrackerEmulator.start(directory: TestPaths.temporaryDirectory("tracker"))
        defer { emulator.stop() }
        try await emulator.configure(["throttle_next": 1])
        let tracker = client(emulator, credentials: StaticCredentialProvider(emulator.staticCredentials))
        let update = [DevicePositionUpdate(deviceID: "d", location: Self.location(0))]
        await #expect(throws: TrackerError.throttled(retryAfter: 2, message: "Rate exceeded")) {
            _ = try await tracker.batchUpdateDevicePosition(tracker: "fleet", updates: update)
        }
        #expect(try await tracker.batchUpdateDevicePosition(tracker: "fleet", updates: update).isEmpty)
    }

    @Test func anUnknownDeviceIsNotFound() async throws {
        let emulator = try await TrackerEmulator.start(directory: TestPaths.temporaryDirectory("tracker"))
        defer { emulator.stop() }
        let tracker = client(emulator, credentials: StaticCredentialProvider(emulator.staticCredentials))
        await #expect {
            _ = try await tracker.getDevicePosition(tracker: "fleet", device: "nobody")
        } throws: { error in
            if case .resourceNotFound = error as? TrackerError { return true }
            return false
        }
    }

    @Test func aClosedPortIsANetworkError() async throws {
        let tracker = TrackerClient(
            region: "eu-west-1", endpoint: try ServiceEndpoint("http://127.0.0.1:\(FreePort.next())"),
            credentials: StaticCredentialProvider(Credentials(accessKeyID: "AKID", secretAccessKey: "s", source: "test")),
            transport: SocketTransport())
        await #expect {
            _ = try await tracker.getDevicePosition(tracker: "fleet", device: "d")
        } throws: { error in
            guard let error = error as? TrackerError, case .network = error else { return false }
            return error.disposition == .retry(after: nil)
        }
    }
}
