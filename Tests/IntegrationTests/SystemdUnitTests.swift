import Foundation
import TestSupport
import Testing

/// The shipped unit passes `systemd-analyze verify` and rates at most 2.0 in `systemd-analyze security`.
/// (Its manual pages exist once packaged: `DebianPackageTests` verifies them too.)
@Suite struct SystemdUnitTests {
    static let unit = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("systemd/gpstrackd.service").path

    /// The unit with ExecStart pointing at the binary just built (verify checks that it exists).
    func preparedUnit() throws -> (path: String, directory: URL) {
        let directory = TestPaths.temporaryDirectory("unit")
        let text = try String(contentsOfFile: Self.unit, encoding: .utf8)
            .replacingOccurrences(of: "/usr/local/bin/gpstrackd", with: TestPaths.gpstrackd)
        let path = directory.appendingPathComponent("gpstrackd.service").path
        try text.write(toFile: path, atomically: true, encoding: .utf8)
        return (path, directory)
    }

    @Test func verifiesClean() async throws {
        let (path, directory) = try preparedUnit()
        let verify = try ChildProcess("/usr/bin/systemd-analyze", ["verify", "--man=no", path], directory: directory, name: "verify")
        #expect(await verify.waitForExit(timeout: 60))
        #expect(verify.terminationStatus == 0, "\(verify.stderr)")
        #expect(verify.stderr.isEmpty && verify.stdout.isEmpty, "\(verify.stderr)\(verify.stdout)")
    }

    @Test func exposureIsAtMostTwo() async throws {
        let (path, directory) = try preparedUnit()
        let security = try ChildProcess("/usr/bin/systemd-analyze", ["security", "--offline=true", path], directory: directory, name: "security")
        #expect(await security.waitForExit(timeout: 60))
        let line = try #require(security.stdout.split(separator: "\n").first { $0.contains("Overall exposure level") }, "\(security.stderr)")
        let number = line.split(separator: ":").last?.split(separator: " ").first.flatMap { Double($0) }
        let exposure = try #require(number, "\(line)")
        print("systemd-analyze security: \(exposure)")
        #expect(exposure <= 2.0)
    }

    @Test func requiredSettingsArePresent() throws {
        let text = try String(contentsOfFile: Self.unit, encoding: .utf8)
        for setting in ["Type=notify", "WatchdogSec=", "Restart=on-failure", "After=gpsd.service", "Wants=gpsd.service",
                        "RestartPreventExitStatus=73 78", "StateDirectory=gpstrackd", "RuntimeDirectory=gpstrackd", "LoadCredential=", "DynamicUser=yes",
                        "ProtectSystem=strict", "ProtectHome=yes", "PrivateTmp=yes", "NoNewPrivileges=yes",
                        "RestrictAddressFamilies=AF_UNIX AF_INET AF_INET6", "SystemCallFilter=@system-service", "CapabilityBoundingSet="] {
            #expect(text.contains(setting), "\(setting)")
        }
    }
}
