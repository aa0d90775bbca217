import Foundation
import Glibc
import TestSupport
import Testing

/// The state directory belongs to one daemon, and its spool must be writable by it.
@Suite struct StateDirectoryTests {
    @Test func aSecondDaemonOnTheSameStateDirectoryExitsWithAClearMessage() async throws {
        let directory = TestPaths.temporaryDirectory("lock")
        let state = directory.appendingPathComponent("state").path
        // gpsd is not running: the first daemon waits for it, which is all this test needs.
        let settings = ["--config", "/dev/null", "--gpsd", "127.0.0.1:\(FreePort.next())", "--state-dir", state, "--log-format", "text"]
        let first = try ChildProcess(TestPaths.gpstrackd, ["run"] + settings, directory: directory, name: "first")
        defer { first.terminate() }
        #expect(await ChildProcess.waitUntil(timeout: 20) { first.stderr.contains("started") }, "\(first.stderr)")
        let second = try ChildProcess(TestPaths.gpstrackd, ["run"] + settings, directory: directory, name: "second")
        #expect(await second.waitForExit(timeout: 20))
        #expect(second.terminationStatus == 75, "EX_TEMPFAIL: \(second.stderr)")
        #expect(second.stderr.contains("another gpstrackd (pid \(first.pid)) is already running on the state directory \(state)"),
                "\(second.stderr)")
        #expect(first.isRunning, "the first daemon is left alone")
        first.send(SIGTERM)
        #expect(await first.waitForExit(timeout: 20))
        #expect(first.terminationStatus == 0, "\(first.stderr)")
        // Once the first has gone, the lock is free again.
        let third = try ChildProcess(TestPaths.gpstrackd, ["run"] + settings, directory: directory, name: "third")
        defer { third.terminate() }
        #expect(await ChildProcess.waitUntil(timeout: 20) { third.stderr.contains("started") }, "\(third.stderr)")
        third.send(SIGTERM)
        #expect(await third.waitForExit(timeout: 20))
    }

    @Test func aSpoolOwnedByAnotherUserIsRefusedAtStartWithExit73() async throws {
        guard getuid() == 0, FileManager.default.isExecutableFile(atPath: "/usr/bin/setpriv") else {
            print("skipped: running the daemon as another user needs root and setpriv")
            return
        }
        let directory = TestPaths.temporaryDirectory("read-only")
        let state = directory.appendingPathComponent("state").path
        // The state directory is the daemon user's; the spool in it was left by root.
        let seed = try ChildProcess(TestPaths.gpstrackd, ["status", "--config", "/dev/null", "--state-dir", state],
                                    directory: directory, name: "seed")
        #expect(await seed.waitForExit(timeout: 20))
        #expect(FileManager.default.fileExists(atPath: state + "/spool.db"))
        #expect(chmod(directory.path, 0o755) == 0)
        #expect(chown(state, 65534, 65534) == 0)
        #expect(chmod(state + "/spool.db", 0o644) == 0)
        let daemon = try ChildProcess(
            "/usr/bin/setpriv", ["--reuid=65534", "--regid=65534", "--clear-groups", TestPaths.gpstrackd, "run",
                                 "--config", "/dev/null", "--gpsd", "127.0.0.1:\(FreePort.next())", "--state-dir", state],
            directory: directory, name: "daemon")
        #expect(await daemon.waitForExit(timeout: 20))
        #expect(daemon.terminationStatus == 73, "EX_CANTCREAT: \(daemon.stderr)")
        #expect(daemon.stderr.contains("cannot write the spool file \(state)/spool.db (it belongs to uid 0, this process runs as uid 65534)"),
                "\(daemon.stderr)")
        #expect(daemon.stderr.contains("chown"))
    }
}
