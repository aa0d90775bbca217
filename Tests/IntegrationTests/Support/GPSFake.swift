import Foundation
import Glibc

/// A real gpsd fed from an NMEA log by `gpsfake`, on a free loopback port.
final class GPSFake: @unchecked Sendable {
    let port: UInt16
    let child: ChildProcess

    /// Starts `gpsfake -1 -q -P port -c cycle log` and waits until gpsd listens.
    init(log: String, cycle: Double, port: UInt16 = FreePort.next(), directory: URL, name: String = "gpsfake") throws {
        self.port = port
        child = try ChildProcess(
            "/usr/bin/gpsfake",
            ["-1", "-q", "-P", String(port), "-c", String(cycle), log],
            directory: directory, name: name)
        guard ChildProcess.waitUntil(timeout: 15, { FreePort.isListening(port) }) else {
            child.terminate()
            throw GPSFakeError(message: "gpsfake did not start gpsd on port \(port): \(child.stderr)")
        }
    }

    var endpoint: String { "127.0.0.1:\(port)" }

    /// Stops gpsfake and the gpsd it started.
    func stop() {
        child.terminate()
        _ = ChildProcess.waitUntil(timeout: 10) { !FreePort.isListening(port) }
    }
}

struct GPSFakeError: Error, CustomStringConvertible {
    var message: String
    var description: String { message }
}
