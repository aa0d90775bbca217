@testable import AWSLocation
import Foundation
import Synchronization
import Testing
import TrackingCore

/// A transport that must not be used.
struct NoNetwork: HTTPTransport {
    func send(_ request: HTTPRequest) async throws(HTTPError) -> HTTPResponse {
        throw .connection(url: request.url, reason: "no network in unit tests")
    }
}

@Suite struct CredentialChainTests {
    static func directory() -> String {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("gpstrackd-creds-\(UUID().uuidString.prefix(8))").path
        try? FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        return path
    }

    static func write(_ text: String, to path: String, mode: Int = 0o600) throws {
        try text.write(toFile: path, atomically: true, encoding: .utf8)
        try FileManager.default.setAttributes([.posixPermissions: mode], ofItemAtPath: path)
    }

    func resolve(_ configure: (inout CredentialChain.Configuration) -> Void) throws(CredentialError) -> CredentialChain.Resolution {
        var configuration = CredentialChain.Configuration(environment: [:])
        configure(&configuration)
        return try CredentialChain.resolve(configuration, transport: NoNetwork())
    }

    @Test func explicitKeysComeFirst() async throws {
        let resolution = try resolve {
            $0.accessKeyID = "AKIAEXPLICIT0001"
            $0.secretAccessKey = "s1"
            $0.environment = ["AWS_ACCESS_KEY_ID": "AKIAENV000000001", "AWS_SECRET_ACCESS_KEY": "s2"]
        }
        #expect(try await resolution.provider.credentials().accessKeyID == "AKIAEXPLICIT0001")
        #expect(resolution.source == "the configuration")
    }

    @Test func environmentBeforeFiles() async throws {
        let home = Self.directory()
        try FileManager.default.createDirectory(atPath: home + "/.aws", withIntermediateDirectories: true)
        try Self.write("[default]\naws_access_key_id = AKIAFILE00000001\naws_secret_access_key = s3\n", to: home + "/.aws/credentials")
        let resolution = try resolve {
            $0.environment = ["AWS_ACCESS_KEY_ID": "AKIAENV000000001", "AWS_SECRET_ACCESS_KEY": "s2", "AWS_SESSION_TOKEN": "t2", "HOME": home]
        }
        let credentials = try await resolution.provider.credentials()
        #expect(credentials.accessKeyID == "AKIAENV000000001")
        #expect(credentials.sessionToken == "t2")
    }

    @Test func systemdCredentialBeforeTheSharedFile() async throws {
        let credentialsDirectory = Self.directory()
        try Self.write("[default]\naws_access_key_id=AKIASYSTEMD00001\naws_secret_access_key=s4\n", to: credentialsDirectory + "/aws-credentials")
        let home = Self.directory()
        try FileManager.default.createDirectory(atPath: home + "/.aws", withIntermediateDirectories: true)
        try Self.write("[default]\naws_access_key_id = AKIAFILE00000001\naws_secret_access_key = s3\n", to: home + "/.aws/credentials")
        let resolution = try resolve { $0.environment = ["CREDENTIALS_DIRECTORY": credentialsDirectory, "HOME": home] }
        #expect(try await resolution.provider.credentials().accessKeyID == "AKIASYSTEMD00001")
        #expect(resolution.source.contains("systemd credential"))
    }

    @Test func sharedFileProfileFromConfigurationOrEnvironment() async throws {
        let path = Self.directory() + "/credentials"
        try Self.write("""
            # fleet keys
            [default]
            aws_access_key_id = AKIADEFAULT00001
            aws_secret_access_key = s5

            [profile fleet]
            aws_access_key_id = AKIAFLEET0000001
            aws_secret_access_key = s6
            aws_session_token = t6
            """, to: path)
        let byKey = try resolve {
            $0.profile = "fleet"
            $0.environment = ["AWS_SHARED_CREDENTIALS_FILE": path, "AWS_PROFILE": "default"]
        }
        #expect(try await byKey.provider.credentials().accessKeyID == "AKIAFLEET0000001")
        let byEnvironment = try resolve { $0.environment = ["AWS_SHARED_CREDENTIALS_FILE": path, "AWS_PROFILE": "fleet"] }
        #expect(try await byEnvironment.provider.credentials().sessionToken == "t6")
        let byDefault = try resolve { $0.environment = ["AWS_SHARED_CREDENTIALS_FILE": path] }
        #expect(try await byDefault.provider.credentials().accessKeyID == "AKIADEFAULT00001")
    }

    @Test func warnsAboutAFileOthersCanRead() throws {
        let path = Self.directory() + "/credentials"
        try Self.write("[default]\naws_access_key_id=AKIAOPEN00000001\naws_secret_access_key=s7\n", to: path, mode: 0o644)
        let resolution = try resolve { $0.environment = ["AWS_SHARED_CREDENTIALS_FILE": path] }
        #expect(resolution.warnings == ["\(path) holds AWS secrets and is readable by group or others; chmod 600 it"])
    }

    @Test func cognitoWhenNothingElse() throws {
        let resolution = try resolve { $0.identityPoolID = "eu-west-1:00000000-1111-2222-3333-444444444444" }
        #expect(resolution.source == "Cognito identity pool eu-west-1:00000000-1111-2222-3333-444444444444 (guest)")
    }

    @Test func saysWhatItTriedWhenNothingYields() {
        #expect(throws: CredentialError.notFound(tried: [
            "configuration keys", "environment AWS_ACCESS_KEY_ID", "systemd credential aws-credentials",
            "shared credentials file (profile default)", "identity-pool-id",
        ])) { try resolve { _ in } }
    }

    @Test func incompleteAndMissingProfilesAreErrors() throws {
        #expect(throws: CredentialError.incomplete(source: "the environment", missing: "AWS_SECRET_ACCESS_KEY")) {
            try resolve { $0.environment = ["AWS_ACCESS_KEY_ID": "AKIA"] }
        }
        let path = Self.directory() + "/credentials"
        try Self.write("[default]\naws_access_key_id=AKIA1\naws_secret_access_key=s\n", to: path)
        #expect(throws: CredentialError.profileNotFound(profile: "nope", path: path)) {
            try resolve {
                $0.profile = "nope"
                $0.environment = ["AWS_SHARED_CREDENTIALS_FILE": path]
            }
        }
        #expect(throws: CredentialError.cognito(message: "identity-pool-id 'nocolon' is not <region>:<id>, e.g. eu-west-1:0000-…")) {
            try resolve { $0.identityPoolID = "nocolon" }
        }
    }

    @Test func malformedFilesNameTheLine() {
        #expect(throws: CredentialError.unreadable(path: "f", reason: "line 2: expected key = value")) {
            try SharedCredentialsFile.parse("[default]\nnonsense\n", path: "f")
        }
        #expect(throws: CredentialError.unreadable(path: "f", reason: "line 1: key outside a [profile] section")) {
            try SharedCredentialsFile.parse("a = b\n", path: "f")
        }
    }
}

@Suite struct RefreshingCredentialsTests {
    final class Clock: @unchecked Sendable {
        let value = Mutex(FixTime(iso8601: "2026-11-30T08:00:00Z")!)
        func now() -> FixTime { value.withLock { $0 } }
        func advance(_ seconds: Double) { value.withLock { $0 = $0.adding(seconds: seconds) } }
    }

    @Test func refreshesAheadOfExpiryWithOneFetchInFlight() async throws {
        let clock = Clock()
        let fetches = Atomic<Int>(0)
        let provider = RefreshingCredentials(refreshAhead: 300, now: clock.now) { () async throws(CredentialError) -> Credentials in
            let n = fetches.add(1, ordering: .relaxed).newValue
            try? await Task.sleep(for: .milliseconds(50))
            return Credentials(accessKeyID: "ASIA\(n)", secretAccessKey: "s", sessionToken: "t",
                               expiration: clock.now().adding(seconds: 3600), source: "test")
        }
        #expect(try await provider.credentials().accessKeyID == "ASIA1")
        clock.advance(3000)
        #expect(try await provider.credentials().accessKeyID == "ASIA1", "still 10 min left")
        clock.advance(400)
        // Ten callers at once, 3.3 min before expiry: one refresh, all get its result.
        let keys = await withTaskGroup(of: String.self) { group in
            for _ in 0..<10 { group.addTask { (try? await provider.credentials().accessKeyID) ?? "error" } }
            return await group.reduce(into: []) { $0.append($1) }
        }
        #expect(Set(keys) == ["ASIA2"])
        #expect(fetches.load(ordering: .relaxed) == 2)
        await provider.invalidate()
        #expect(try await provider.credentials().accessKeyID == "ASIA3")
    }
}
