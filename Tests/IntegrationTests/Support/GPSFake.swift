import Foundation
import Glibc
import TestSupport

/// A real gpsd fed from an NMEA log by `gpsfake`, on a free loopback port.
final class GPSFake: @unchecked Sendable {
    let port: UInt16
    let child: ChildProcess

    private init(port: UInt16, child: ChildProcess) {
        self.port = port
        self.child = child
    }

    /// Starts `gpsfake -1 -q -P port -c cycle log` and waits until gpsd listens. Without a `port`,
    /// a free one; if another test's server takes it first (gpsd: "Address already in use"), the
    /// next one, up to three times. With a `port`, the same one again a second later, as often.
    static func start(
        log: String, cycle: Double, port: UInt16? = nil, directory: URL, name: String = "gpsfake"
    ) async throws -> GPSFake {
        var attempt = 0
        while true {
            attempt += 1
            let chosen = port ?? FreePort.next()
            let child = try ChildProcess(
                "/usr/bin/gpsfake",
                ["-1", "-q", "-P", String(chosen), "-c", String(cycle), log],
                directory: directory, name: name)
            let fake = GPSFake(port: chosen, child: child)
            if await ChildProcess.waitUntil(timeout: 15, { FreePort.isListening(chosen) || !child.isRunning }),
               child.isRunning, FreePort.isListening(chosen) {
                return fake
            }
            fake.kill()
            if attempt < 3, child.stderr.contains("Address already in use") {
                // A port of its own: another test's server took it, draw the next. A port given
                // (gpsd restarting where it was): the one before may not have let go of it yet
                // (a CI run once failed so, 18 s into a restart test); wait and ask again.
                if port != nil { try await Task.sleep(for: .seconds(1)) }
                continue
            }
            throw GPSFakeError(message: "gpsfake did not start gpsd on port \(chosen): \(child.stderr)")
        }
    }

    var endpoint: String { "127.0.0.1:\(port)" }

    /// `log` with `seconds` of sentences without a fix before it (a receiver still searching),
    /// written to `directory`. gpsfake starts feeding as soon as gpsd listens, so a client started
    /// after it misses the first lines, and how many depends on how busy the machine is; a
    /// lead-in gives it the time to connect, and the log's own first fix is then seen.
    static func leadIn(_ log: String, seconds: Int, directory: URL) throws -> String {
        let text = try String(contentsOfFile: log, encoding: .utf8)
        guard let rmc = text.split(separator: "\n").first(where: { $0.hasPrefix("$GPRMC,") }) else {
            throw GPSFakeError(message: "\(log) has no RMC sentence to date a lead-in from")
        }
        let fields = rmc.split(separator: ",", omittingEmptySubsequences: false)
        let clock = fields[1].prefix(6), date = fields[9]
        guard let hours = Int(clock.prefix(2)), let minutes = Int(clock.dropFirst(2).prefix(2)), let secs = Int(clock.suffix(2)) else {
            throw GPSFakeError(message: "\(log)'s first RMC has no time to date a lead-in from")
        }
        let start = hours * 3600 + minutes * 60 + secs
        guard start >= seconds else { throw GPSFakeError(message: "\(log) starts too early in its day for a \(seconds) s lead-in") }
        func sentence(_ body: String) -> String {
            let sum = body.utf8.reduce(UInt8(0)) { $0 ^ $1 }
            return "$" + body + "*" + String(format: "%02X", sum)
        }
        var lines = ["# \(seconds) s without a fix, then \((log as NSString).lastPathComponent)"]
        for t in (start - seconds)..<start {
            let time = String(format: "%02d%02d%02d.00", t / 3600, t / 60 % 60, t % 60)
            lines.append(sentence("GPRMC,\(time),V,,,,,,,\(date),,,N"))
            lines.append(sentence("GPGGA,\(time),,,,,0,00,99.9,,M,,M,,"))
        }
        let path = directory.appendingPathComponent("leadin-" + (log as NSString).lastPathComponent).path
        try (lines.joined(separator: "\n") + "\n" + text.split(separator: "\n").filter { !$0.hasPrefix("#") }.joined(separator: "\n") + "\n")
            .write(toFile: path, atomically: true, encoding: .utf8)
        return path
    }

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
