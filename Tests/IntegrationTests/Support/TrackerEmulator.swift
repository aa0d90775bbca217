import AWSLocation
import Foundation
import Glibc
import TestSupport

/// The project's tracker emulator (`Tests/Emulator/tracker_emulator.py`, SigV4 checked by
/// botocore) running on a free loopback port.
final class TrackerEmulator: @unchecked Sendable {
    static let script = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("Emulator/tracker_emulator.py").path
    static let accessKey = "AKIDEMULATOR"
    static let secretKey = "emulator-secret-key"

    let child: ChildProcess
    let endpoint: ServiceEndpoint
    private let transport = SocketTransport()

    private init(child: ChildProcess, endpoint: ServiceEndpoint) {
        self.child = child
        self.endpoint = endpoint
    }

    /// Starts the emulator; with `tls` (certificate and key files) it serves https on `localhost`;
    /// `arguments` go to it as they are (other keys, faults).
    static func start(directory: URL, tls: (certificate: String, key: String)? = nil, arguments: [String] = []) async throws -> TrackerEmulator {
        let options = (tls.map { ["--tls-cert", $0.certificate, "--tls-key", $0.key] } ?? []) + arguments
        let child = try ChildProcess("/usr/bin/env", ["python3", script, "--port", "0"] + options, directory: directory, name: "emulator")
        guard await ChildProcess.waitUntil(timeout: 20, { child.stdout.contains("listening on") }),
              let line = child.stdout.split(separator: "\n").first,
              let url = line.split(separator: " ").last
        else {
            child.terminate()
            throw GPSFakeError(message: "the tracker emulator did not start: \(child.stderr)")
        }
        return TrackerEmulator(child: child, endpoint: try ServiceEndpoint(String(url)))
    }

    var staticCredentials: Credentials {
        Credentials(accessKeyID: Self.accessKey, secretAccessKey: Self.secretKey, source: "test")
    }

    /// A control call (`/_emu/...`), answered with JSON.
    func control(_ path: String, _ body: [String: Any]? = nil) async throws -> [String: Any] {
        let data = try body.map { try JSONSerialization.data(withJSONObject: $0) } ?? Data()
        var request = HTTPRequest(method: body == nil ? "GET" : "POST", scheme: "http", host: endpoint.host, port: endpoint.port,
                                  path: path, headers: [], body: Array(data))
        request.setHeader("Host", request.hostHeader)
        let response = try await transport.send(request)
        return try JSONSerialization.jsonObject(with: Data(response.body)) as? [String: Any] ?? [:]
    }

    func positions() async throws -> [[String: Any]] {
        try await control("/_emu/positions")["positions"] as? [[String: Any]] ?? []
    }

    func stat(_ name: String) async throws -> Int {
        (try await control("/_emu/stats")[name] as? NSNumber)?.intValue ?? -1
    }

    func configure(_ settings: [String: Any]) async throws {
        _ = try await control("/_emu/config", settings)
    }

    func stop() { child.terminate() }
}
