import Foundation
import Glibc
import TestSupport
import Testing

/// SIGHUP reloads the configuration without a restart; a bad one is refused and the old one kept.
@Suite struct DaemonSignalTests {
    @Test func reloadsOnSIGHUPAndKeepsTheOldConfigurationWhenTheNewOneIsBad() async throws {
        let directory = TestPaths.temporaryDirectory("reload")
        let config = directory.appendingPathComponent("gpstrackd.conf").path
        try "log-level = info\nmax-deviation = 10\n".write(toFile: config, atomically: true, encoding: .utf8)
        let daemon = try ChildProcess(
            TestPaths.gpstrackd,
            ["--config", config, "--state-dir", directory.appendingPathComponent("state").path, "--gpsd", "127.0.0.1:\(FreePort.next())"],
            directory: directory, name: "daemon")
        defer { daemon.terminate() }
        #expect(await ChildProcess.waitUntil(timeout: 20) { daemon.stderr.contains("started") }, "\(daemon.stderr)")

        try "log-level = debug\nmax-deviation = 5\n".write(toFile: config, atomically: true, encoding: .utf8)
        daemon.send(SIGHUP)
        #expect(await ChildProcess.waitUntil(timeout: 10) { daemon.stderr.contains("configuration reloaded") }, "\(daemon.stderr)")

        try "batch-size = 99\n".write(toFile: config, atomically: true, encoding: .utf8)
        daemon.send(SIGHUP)
        #expect(await ChildProcess.waitUntil(timeout: 10) { daemon.stderr.contains("configuration reload rejected") }, "\(daemon.stderr)")
        #expect(daemon.stderr.contains("\(config):1: batch-size = '99': must be a whole number from 1 to 10"))
        #expect(daemon.stderr.contains("keeping the running configuration"))

        try "device-id = another-van\nburst-window = 0\n".write(toFile: config, atomically: true, encoding: .utf8)
        daemon.send(SIGHUP)
        #expect(await ChildProcess.waitUntil(timeout: 10) { daemon.stderr.contains("were not applied: burst-window, device-id") }, "\(daemon.stderr)")
        #expect(daemon.isRunning, "a reload never stops the daemon")

        daemon.send(SIGTERM)
        #expect(await daemon.waitForExit(timeout: 20))
        #expect(daemon.terminationStatus == 0)
    }
}
