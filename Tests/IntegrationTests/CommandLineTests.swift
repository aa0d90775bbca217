import Foundation
import TestSupport
import Testing

/// The command line: help, version, and usage errors with exit status 64 (EX_USAGE).
@Suite struct CommandLineTests {
    func run(_ arguments: [String]) async throws -> (status: Int32, stdout: String, stderr: String) {
        let child = try ChildProcess(TestPaths.gpstrackd, arguments, directory: TestPaths.temporaryDirectory("cli"), name: "cli")
        // A bound on a hang, not a speed check: the suite starts dozens of processes at once.
        #expect(await child.waitForExit(timeout: 30))
        return (child.terminationStatus, child.stdout, child.stderr)
    }

    @Test func printsHelp() async throws {
        let result = try await run(["--help"])
        #expect(result.status == 0)
        #expect(result.stdout.contains("gpstrackd watch [--gpsd HOST:PORT]"))
    }

    @Test func printsVersion() async throws {
        let result = try await run(["--version"])
        #expect(result.status == 0)
        #expect(result.stdout == "gpstrackd 0.1.0\n")
    }

    @Test(arguments: [
        (["watch", "--gpsd", "nowhere:99999"], "--gpsd 'nowhere:99999' is not HOST:PORT"),
        (["watch", "--gpsd"], "--gpsd needs a value"),
        (["watch", "--bogus"], "unknown option '--bogus'"),
        (["fly"], "unknown command 'fly'"),
        (["watch", "--no-data-timeout", "0"], "--no-data-timeout '0' must be a number of seconds"),
        (["watch", "--accuracy-source", "receiver"], "--accuracy-source 'receiver' must be gpsd or gst"),
        (["watch", "--max-deviation", "5"], "--max-deviation is a filter setting; add --filter"),
        (["watch", "--filter", "--max-deviation", "-3"], "--max-deviation '-3' must be a number from 0.5 to 10000"),
        (["watch", "--filter", "--min-mode", "4d"], "--min-mode '4d' must be 2d or 3d"),
        (["watch", "--filter", "--stopped-speed", "3"], "stopped-speed (3.0) must be below moving-speed (2.0)"),
    ])
    func rejectsBadUsageWithExit64(arguments: [String], message: String) async throws {
        let result = try await run(arguments)
        #expect(result.status == 64)
        #expect(result.stderr.contains(message), "\(result.stderr)")
        #expect(result.stderr.contains("see gpstrackd --help"))
        #expect(result.stdout.isEmpty)
    }

    @Test func checkConfigExits78OnABadValueAndPrintsTheEffectiveSettings() async throws {
        let bad = try await run(["check-config", "--config", "/dev/null", "--batch-size", "11"])
        #expect(bad.status == 78)
        #expect(bad.stderr.contains("flag --batch-size: batch-size = '11': must be a whole number from 1 to 10"))
        let good = try await run(["check-config", "--config", "/dev/null", "--device-id", "truck-7"])
        #expect(good.status == 0)
        #expect(good.stdout.contains("device-id = truck-7"))
        #expect(good.stdout.contains("# flag --device-id"))
    }
}
