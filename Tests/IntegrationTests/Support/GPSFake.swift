import Foundation
import Glibc

/// A real gpsd fed from an NMEA log by `gpsfake`, on a free loopback port.
final class GPSFake: @unchecked Sendable {
    let port: UInt16
    let child: ChildProcess

    private init(port: UInt16, child: ChildProcess) {
        self.port = port
        self.child = child
    }

    /// Starts `gpsfake -1 -q -P port -c cycle log` and waits until gpsd listens.
    static func start(
        log: String, cycle: Double, port: UInt16 = FreePort.next(), directory: URL, name: String = "gpsfake"
    ) async throws -> GPSFake {
        let child = try ChildProcess(
            "/usr/bin/gpsfake",
            ["-1", "-q", "-P", String(port), "-c", String(cycle), log],
            directory: directory, name: name)
        let fake = GPSFake(port: port, child: child)
        guard await ChildProcess.waitUntil(timeout: 15, { FreePort.isListening(port) }) else {
            fake.kill()
            throw GPSFakeError(message: "gpsfake did not start gpsd on port \(port): \(child.stderr)")
        }
        return fake
    }

    var endpoint: String { "127.0.0.1:\(port)" }

    /// Stops the gpsd that gpsfake started (as a restarting gpsd would go away), then gpsfake,
    /// which leaves its gpsd running when it is itself terminated.
    func stop() async {
        for pid in Self.gpsdProcesses(port: port) { Glibc.kill(pid, SIGTERM) }
        if child.isRunning {
            child.send(SIGINT)
            await child.waitForExit(timeout: 5)
        }
        if await !ChildProcess.waitUntil(timeout: 5, { !FreePort.isListening(port) }) {
            kill()
            _ = await ChildProcess.waitUntil(timeout: 5) { !FreePort.isListening(port) }
        }
    }

    /// Clean-up for `defer`: kills gpsd and gpsfake at once.
    func kill() {
        for pid in Self.gpsdProcesses(port: port) { Glibc.kill(pid, SIGKILL) }
        child.terminate()
    }

    /// gpsd processes started by gpsfake for `port` (`gpsd ... -S PORT ...`), found in /proc.
    static func gpsdProcesses(port: UInt16) -> [pid_t] {
        guard let entries = try? FileManager.default.contentsOfDirectory(atPath: "/proc") else { return [] }
        return entries.compactMap { entry -> pid_t? in
            guard let pid = pid_t(entry),
                  let data = FileManager.default.contents(atPath: "/proc/\(entry)/cmdline") else { return nil }
            let arguments = data.split(separator: 0).map { String(decoding: $0, as: UTF8.self) }
            guard let program = arguments.first, program.hasSuffix("gpsd"),
                  let flag = arguments.firstIndex(of: "-S"), flag + 1 < arguments.count,
                  arguments[flag + 1] == String(port) else { return nil }
            return pid
        }
    }
}

struct GPSFakeError: Error, CustomStringConvertible {
    var message: String
    var description: String { message }
}
