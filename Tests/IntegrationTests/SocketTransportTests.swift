import AWSLocation
import Foundation
import TestSupport
import Testing
import TrackingCore

/// The HTTP transport over TLS against the emulator serving https with a test certificate:
/// verification refuses what it must, and a CONNECT proxy carries the tunnel.
@Suite struct SocketTransportTests {
    /// A self-signed certificate (its own CA) for `names` (e.g. `DNS:localhost,IP:127.0.0.2`), with
    /// a P-256 key, or an RSA key (`rsa`) as the service's certificates have.
    static func certificate(_ directory: URL, _ label: String, names: String, rsa: Bool = false) async throws -> (certificate: String, key: String) {
        let certificate = directory.appendingPathComponent("\(label).pem").path
        let key = directory.appendingPathComponent("\(label).key").path
        let keyOptions = rsa ? ["-newkey", "rsa:2048"] : ["-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1"]
        let child = try ChildProcess("/usr/bin/openssl", ["req", "-x509"] + keyOptions + [
            "-nodes", "-keyout", key, "-out", certificate, "-days", "2",
            "-subj", "/CN=gpstrackd test", "-addext", "subjectAltName=\(names)",
        ], directory: directory, name: "openssl-\(label)")
        #expect(await child.waitForExit(timeout: 30))
        #expect(child.terminationStatus == 0, "\(child.stderr)")
        return (certificate, key)
    }

    static let update = DevicePositionUpdate(
        deviceID: "tls-truck",
        location: Location(time: FixTime(iso8601: "2026-11-30T08:00:00Z")!, mode: .threeD, latitude: 52.5, longitude: 13.4,
                           horizontalAccuracy: 3)!,
        properties: [])

    @Test func verifiesTheServerAndUploadsOverTLS() async throws {
        let directory = TestPaths.temporaryDirectory("transport-tls")
        let trusted = try await Self.certificate(directory, "server", names: "DNS:localhost,IP:127.0.0.1")
        let emulator = try await TrackerEmulator.start(directory: directory, tls: trusted)
        defer { emulator.stop() }
        #expect(emulator.endpoint.description.hasPrefix("https://localhost:"))

        // The system's trust store does not know the test certificate: refused, and said why.
        let untrusting = TrackerClient(region: "eu-west-1", endpoint: emulator.endpoint,
                                       credentials: StaticCredentialProvider(emulator.staticCredentials), transport: SocketTransport())
        do {
            _ = try await untrusting.batchUpdateDevicePosition(tracker: "fleet", updates: [Self.update])
            Issue.record("an untrusted certificate was accepted")
        } catch {
            #expect("\(error)".contains("certificate did not verify"), "\(error)")
            #expect("\(error)".contains("self-signed"), "\(error)")
        }

        // Trusting it (a private CA): the update goes, and reads back over the same TLS.
        let transport = SocketTransport(configuration: .init(caFile: trusted.certificate))
        let client = TrackerClient(region: "eu-west-1", endpoint: emulator.endpoint,
                                   credentials: StaticCredentialProvider(emulator.staticCredentials), transport: transport)
        #expect(try await client.batchUpdateDevicePosition(tracker: "fleet", updates: [Self.update]).isEmpty)
        let latest = try await client.getDevicePosition(tracker: "fleet", device: "tls-truck")
        #expect(latest.latitude == 52.5 && latest.longitude == 13.4 && latest.sampleTime == Self.update.sampleTime)
    }

    @Test func everyReconnectResumesTheTLSSession() async throws {
        let directory = TestPaths.temporaryDirectory("transport-tls-resume")
        let trusted = try await Self.certificate(directory, "server", names: "DNS:localhost,IP:127.0.0.1")
        let emulator = try await TrackerEmulator.start(directory: directory, tls: trusted)
        defer { emulator.stop() }
        let transport = SocketTransport(configuration: .init(caFile: trusted.certificate))
        let client = TrackerClient(region: "eu-west-1", endpoint: emulator.endpoint,
                                   credentials: StaticCredentialProvider(emulator.staticCredentials), transport: transport)
        #expect(try await client.batchUpdateDevicePosition(tracker: "fleet", updates: [Self.update]).isEmpty)
        #expect(transport.tlsHandshakes == .init(full: 1, resumed: 0))
        // A kept-alive connection is reused without a handshake at all.
        _ = try await client.getDevicePosition(tracker: "fleet", device: "tls-truck")
        #expect(transport.tlsHandshakes == .init(full: 1, resumed: 0))
        // Closed (as a NAT's idle timeout does): each new connection resumes the session.
        for round in 1...3 {
            transport.closeIdleConnections()
            _ = try await client.getDevicePosition(tracker: "fleet", device: "tls-truck")
            #expect(transport.tlsHandshakes == .init(full: 1, resumed: round), "reconnect \(round)")
        }
    }

    /// The session is kept in the session file (0600), and a transport started anew (the daemon
    /// after a restart) resumes it on its first connection, sending no certificate chain. A damaged
    /// file costs one full handshake and nothing else.
    @Test func aRestartResumesTheSessionTheLastRunKept() async throws {
        let directory = TestPaths.temporaryDirectory("transport-tls-session-file")
        let trusted = try await Self.certificate(directory, "server", names: "DNS:localhost,IP:127.0.0.1")
        let emulator = try await TrackerEmulator.start(directory: directory, tls: trusted)
        defer { emulator.stop() }
        let file = directory.appendingPathComponent("tls-sessions.json").path
        func run() async throws -> SocketTransport.TLSHandshakes {
            var configuration = SocketTransport.Configuration(caFile: trusted.certificate)
            configuration.sessionFile = file
            let transport = SocketTransport(configuration: configuration)
            let client = TrackerClient(region: "eu-west-1", endpoint: emulator.endpoint,
                                       credentials: StaticCredentialProvider(emulator.staticCredentials), transport: transport)
            #expect(try await client.batchUpdateDevicePosition(tracker: "fleet", updates: [Self.update]).isEmpty)
            return transport.tlsHandshakes
        }
        #expect(try await run() == .init(full: 1, resumed: 0))
        var info = stat()
        #expect(stat(file, &info) == 0 && info.st_mode & 0o777 == 0o600, "the session file is the daemon's alone")
        #expect(try await run() == .init(full: 0, resumed: 1), "the next run resumes the session the first kept")
        #expect(try await run() == .init(full: 0, resumed: 1), "and keeps the one it got in turn")
        try "not a session file".write(toFile: file, atomically: true, encoding: .utf8)
        #expect(try await run() == .init(full: 1, resumed: 0), "a damaged file: one full handshake")
        #expect(try await run() == .init(full: 0, resumed: 1))
    }

    /// The bench's restarts (`gpstrackd-bench wire --restarts`): with the sessions kept, only the
    /// first start makes a full handshake, and the starts cost fewer bytes than the reference's.
    @Test func theRestartBenchResumesAfterTheFirstStart() async throws {
        let run = try await Self.wire("transport-tls-restarts", ["--restarts", "3"])
        defer { run.emulator.stop() }
        #expect(run.figures["handshakes, sessions kept across starts"] == "1 full, 2 resumed", "the bench said: \(run.errors)")
        #expect(run.figures["handshakes, in memory only (reference)"] == "3 full, 0 resumed")
        let ratio = try #require(run.figures["bytes per start, kept / reference"].flatMap(Double.init))
        #expect(ratio < 1, "\(ratio)")
    }

    /// The ClientHello offers only what a current server needs (TLS 1.3's suites, forward-secret
    /// AEAD suites for TLS 1.2, three groups, SHA-2 signatures), which must still meet a server as
    /// the service runs it: an RSA certificate, over TLS 1.3 and over TLS 1.2 alone, a session
    /// resumed on reconnect in both.
    @Test(arguments: ["1.2", "1.3"])
    func speaksToAServerWithAnRSACertificate(maxVersion: String) async throws {
        let directory = TestPaths.temporaryDirectory("transport-tls-rsa")
        let trusted = try await Self.certificate(directory, "rsa-server", names: "DNS:localhost,IP:127.0.0.1", rsa: true)
        let emulator = try await TrackerEmulator.start(directory: directory, tls: trusted, arguments: ["--tls-max-version", maxVersion])
        defer { emulator.stop() }
        let transport = SocketTransport(configuration: .init(caFile: trusted.certificate))
        let client = TrackerClient(region: "eu-west-1", endpoint: emulator.endpoint,
                                   credentials: StaticCredentialProvider(emulator.staticCredentials), transport: transport)
        #expect(try await client.batchUpdateDevicePosition(tracker: "fleet", updates: [Self.update]).isEmpty)
        transport.closeIdleConnections()
        let latest = try await client.getDevicePosition(tracker: "fleet", device: "tls-truck")
        #expect(latest.sampleTime == Self.update.sampleTime)
        #expect(transport.tlsHandshakes == .init(full: 1, resumed: 1), "TLS \(maxVersion)")
    }

    /// As on a cellular link: a relay between uploader and tracker closes connections left idle
    /// (`gpstrackd-bench wire`), so each position meets a dead kept-alive connection and connects
    /// anew; each reconnect resumes the session, fewer bytes cross than with full handshakes, and
    /// none goes into a connection already closed.
    @Test func aConnectionANATClosedIsReplacedByAResumedOne() async throws {
        // Two seconds either way: positions 2.5 s apart against a 2 s idle timeout once met a
        // connection still open on a loaded machine (2 connections for 3 positions).
        let run = try await Self.wire("transport-tls-nat", ["--positions", "3", "--every", "3500", "--idle-close", "1.5"])
        defer { run.emulator.stop() }
        let figures = run.figures
        print("wire: \(figures)")
        #expect(figures["connections, full handshakes (reference)"] == "3: 3 full, 0 resumed handshakes")
        #expect(figures["connections, resuming TLS sessions"] == "3: 1 full, 2 resumed handshakes")
        let ratio = try #require(figures["bytes per position, resuming / full"].flatMap(Double.init))
        #expect(ratio < 0.95, "resumed handshakes carry no certificate chain")
        // A connection the relay closed is seen closed before a request is written into it: no
        // byte leaves the device that the relay did not carry.
        for label in ["full handshakes (reference)", "resuming TLS sessions"] {
            let counted = figures["bytes counted by the transport / the relay, \(label)"]?.split(separator: " ").first
            #expect(counted == "1.000", "\(label): \(figures["bytes counted by the transport / the relay, \(label)"] ?? "-")")
        }
    }

    /// The same path with keepalives on idle connections (`IdleKeepAlive`, here every 0.5 s): the
    /// relay sees traffic, the one connection carries every position, and the transport counts
    /// the keepalives' bytes as the relay does. Over TLS 1.2, which has no message a server takes
    /// in silence, none is sent and each position reconnects, resuming.
    /// Two seconds either way: a keepalive 2 s late is still in time, and a relay closing 2 s late
    /// still closes before the next position (at 1.5 s against 3.5 s, a keepalive 1 s late on a
    /// machine building while the suite ran once cost a reconnect).
    @Test(arguments: ["1.3", "1.2"])
    func keepalivesKeepAConnectionOpenThroughANAT(maxVersion: String) async throws {
        let run = try await Self.wire("transport-tls-keepalive-\(maxVersion)", ["--positions", "3", "--every", "4500", "--idle-close", "2.5", "--keepalive", "0.5"],
                                      emulatorArguments: ["--tls-max-version", maxVersion])
        defer { run.emulator.stop() }
        let figures = run.figures
        print("wire, keepalives, TLS \(maxVersion): \(figures)")
        let keepalives = try #require(figures["keepalives, resuming TLS sessions"].flatMap { Int($0) }, "the bench said: \(run.errors)")
        if maxVersion == "1.3" {
            #expect(figures["connections, resuming TLS sessions"] == "1: 1 full, 0 resumed handshakes")
            // Two gaps of 4.5 s, a keepalive each 0.5 s of silence: about 8 in each.
            #expect(keepalives >= 8, "\(keepalives) keepalives")
        } else {
            #expect(figures["connections, resuming TLS sessions"] == "3: 1 full, 2 resumed handshakes")
            #expect(keepalives == 0)
        }
        let counted = figures["bytes counted by the transport / the relay, resuming TLS sessions"]?.split(separator: " ").first
        #expect(counted == "1.000", "\(figures["bytes counted by the transport / the relay, resuming TLS sessions"] ?? "-")")
    }

    /// Two requests at once leave two idle connections to the tracker; only one of them is kept
    /// alive (the newest, which the next request takes), the other closed when its keepalive falls
    /// due: a backlog drained four at a time does not cost four connections' keepalives.
    @Test func onlyOneIdleConnectionToAServerIsKeptAlive() async throws {
        // Slow answers, so that the two requests overlap and take a connection each.
        let (client, transport, emulator) = try await Self.keptAlive("transport-keepalive-one", every: .milliseconds(300),
                                                                    emulatorArguments: ["--latency-ms", "300"])
        defer { emulator.stop() }
        async let first = client.batchUpdateDevicePosition(tracker: "fleet", updates: [Self.update])
        async let second = client.batchUpdateDevicePosition(tracker: "fleet", updates: [Self.update])
        _ = try await (first, second)
        #expect(transport.tlsHandshakes.full + transport.tlsHandshakes.resumed == 2, "\(transport.tlsHandshakes)")
        #expect(transport.idleConnections == 2)
        #expect(await eventually { transport.keepAlivesSent >= 3 }, "\(transport.keepAlivesSent) keepalives")
        #expect(transport.idleConnections == 1, "the other closed")
        // The one kept still carries the next request, without a handshake.
        _ = try await client.getDevicePosition(tracker: "fleet", device: "tls-truck")
        #expect(transport.tlsHandshakes.full + transport.tlsHandshakes.resumed == 2)
    }

    /// A one-off request (a tracker description here; a credential refresh is the same) leaves its
    /// connection idle without keepalives: nothing takes it before a path closes it. Once the
    /// connection has carried an upload it is kept alive, also after a one-off in between.
    @Test func onlyAConnectionThatCarriesUploadsIsKeptAlive() async throws {
        let (client, transport, emulator) = try await Self.keptAlive("transport-keepalive-uploads", every: .milliseconds(200))
        defer { emulator.stop() }
        _ = try await client.describeTracker("fleet")
        #expect(transport.idleConnections == 1)
        // Five keepalive periods of silence: none sent.
        try await Task.sleep(for: .seconds(1))
        #expect(transport.keepAlivesSent == 0, "\(transport.keepAlivesSent) keepalives after a one-off request")
        _ = try await client.batchUpdateDevicePosition(tracker: "fleet", updates: [Self.update])
        #expect(await eventually { transport.keepAlivesSent >= 2 }, "\(transport.keepAlivesSent) keepalives after an upload")
        _ = try await client.describeTracker("fleet")
        let before = transport.keepAlivesSent
        #expect(await eventually { transport.keepAlivesSent >= before + 2 }, "kept alive after a one-off on an upload's connection")
        #expect(transport.tlsHandshakes.full + transport.tlsHandshakes.resumed == 1, "\(transport.tlsHandshakes)")
    }

    /// A client of a TLS emulator whose transport sends keepalives `every` of silence.
    static func keptAlive(_ label: String, every: Duration, emulatorArguments: [String] = []) async throws
        -> (TrackerClient, SocketTransport, TrackerEmulator)
    {
        let directory = TestPaths.temporaryDirectory(label)
        let trusted = try await Self.certificate(directory, "server", names: "DNS:localhost,IP:127.0.0.1")
        let emulator = try await TrackerEmulator.start(directory: directory, tls: trusted, arguments: emulatorArguments)
        var configuration = SocketTransport.Configuration(caFile: trusted.certificate)
        configuration.keepAlive = IdleKeepAlive(every: every, window: .seconds(60))
        let transport = SocketTransport(configuration: configuration)
        let client = TrackerClient(region: "eu-west-1", endpoint: emulator.endpoint,
                                   credentials: StaticCredentialProvider(emulator.staticCredentials), transport: transport)
        return (client, transport, emulator)
    }

    /// The documentation's example keys, which gpstrackd-bench signs with.
    static let exampleKeys = Credentials(
        accessKeyID: "AKIDEXAMPLE", secretAccessKey: "wJalrXUtnFEMI/K7MDENG+bPxRfiCYEXAMPLEKEY", source: "test")

    /// A `gpstrackd-bench wire` run against the emulator over TLS: what it printed, each
    /// figure's value by its name, and the emulator (still running) with its certificate.
    struct WireRun {
        var figures: [String: String]
        /// What the bench wrote to standard error (its table, and why it stopped if it did).
        var errors: String
        var emulator: TrackerEmulator
        var certificate: String
    }

    static func wire(_ label: String, _ arguments: [String], emulatorArguments: [String] = []) async throws -> WireRun {
        let directory = TestPaths.temporaryDirectory(label)
        let trusted = try await certificate(directory, "server", names: "DNS:localhost,IP:127.0.0.1")
        let emulator = try await TrackerEmulator.start(directory: directory, tls: trusted, arguments: [
            "--access-key", exampleKeys.accessKeyID, "--secret-key", exampleKeys.secretAccessKey,
        ] + emulatorArguments)
        let bench = try ChildProcess(TestPaths.bench, ["wire", "--endpoint", emulator.endpoint.description, "--ca", trusted.certificate] + arguments,
                                     directory: directory, name: "wire")
        #expect(await bench.waitForExit(timeout: 120))
        let figures = Dictionary(bench.stdoutLines.compactMap { line -> (String, String)? in
            guard let object = try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any],
                  let figure = object["figure"] as? String, let value = object["value"] as? String else { return nil }
            return (figure, value)
        }, uniquingKeysWith: { a, _ in a })
        return WireRun(figures: figures, errors: bench.stderr, emulator: emulator, certificate: trusted.certificate)
    }

    /// Issue 18's drive through the relay (`gpstrackd-bench wire --drive`, make_drive's seed 7
    /// through the default filter and uploader, fifty times real time): every kept position is
    /// stored, keepalives keep the connection open, every reconnect resumes the TLS session, and
    /// the transport counts no byte the relay did not carry.
    @Test func aDriveThroughANATResumesEveryReconnectAndWastesNoByte() async throws {
        let drive = TestPaths.fixtures.deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("TrackingCoreTests/Fixtures/drive-seed7.locations.jsonl").path
        let run = try await Self.wire("transport-tls-drive", ["--drive", drive, "--speedup", "50"])
        defer { run.emulator.stop() }
        let figures = run.figures
        print("wire, a drive: \(figures)")
        let kept = try #require(figures["drive: positions kept, requests"]?.split(separator: ",").first.flatMap { Int($0) })
        #expect(kept >= 20, "the default filter keeps the drive's corners")
        // Read back over the same TLS (the emulator's controls speak plain http).
        let client = TrackerClient(region: "us-east-1", endpoint: run.emulator.endpoint, credentials: StaticCredentialProvider(Self.exampleKeys),
                                   transport: SocketTransport(configuration: .init(caFile: run.certificate)))
        let now = SystemClock.now()
        let stored = try await client.getDevicePositionHistory(tracker: "bench", device: "bench-device",
                                                               start: now.adding(seconds: -3600), end: now.adding(seconds: 3600))
        #expect(stored.count == kept, "every kept position stored")
        let connections = try #require(figures["drive: connections"])
        let counts = connections.split(whereSeparator: { !$0.isNumber }).compactMap { Int($0) }
        #expect(counts.count == 3 && counts[1] == 1 && counts[2] == counts[0] - 1, "one full handshake, every reconnect resumed: \(connections)")
        // Points about 60 s apart against the relay's 60 s: without keepalives 6 connections
        // (BENCHMARKS.md), with them one (a second allowed for a late keepalive on a loaded box).
        let keepalives = try #require(figures["drive: keepalives"].flatMap { Int($0) })
        #expect(keepalives > 0 && counts[0] <= 2, "\(keepalives) keepalives, \(connections)")
        let relay = figures["drive: bytes per position through the relay"]?.split(separator: " ").first.map(String.init)
        #expect(relay != nil && relay == figures["drive: bytes per position the transport counted"], "no byte into a closed connection")
    }

    @Test func refusesACertificateForAnotherName() async throws {
        let directory = TestPaths.temporaryDirectory("transport-tls-name")
        let other = try await Self.certificate(directory, "other", names: "DNS:tracker.example.com")
        let emulator = try await TrackerEmulator.start(directory: directory, tls: other)
        defer { emulator.stop() }
        let client = TrackerClient(region: "eu-west-1", endpoint: emulator.endpoint,
                                   credentials: StaticCredentialProvider(emulator.staticCredentials),
                                   transport: SocketTransport(configuration: .init(caFile: other.certificate)))
        do {
            _ = try await client.batchUpdateDevicePosition(tracker: "fleet", updates: [Self.update])
            Issue.record("a certificate for another host name was accepted")
        } catch {
            #expect("\(error)".contains("certificate did not verify") && "\(error)".contains("hostname mismatch"), "\(error)")
        }
    }

    @Test func tunnelsThroughTheHTTPSProxyUnlessNoProxySaysOtherwise() async throws {
        let directory = TestPaths.temporaryDirectory("transport-proxy")
        // 127.0.0.2 is loopback too, but not one of the names that always go direct.
        let trusted = try await Self.certificate(directory, "server", names: "DNS:localhost,IP:127.0.0.2")
        let emulator = try await TrackerEmulator.start(directory: directory, tls: trusted)
        defer { emulator.stop() }
        let script = URL(fileURLWithPath: TrackerEmulator.script).deletingLastPathComponent().appendingPathComponent("connect_proxy.py").path
        let proxy = try ChildProcess("/usr/bin/env", ["python3", script], directory: directory, name: "proxy")
        defer { proxy.terminate() }
        #expect(await ChildProcess.waitUntil(timeout: 10) { proxy.stdout.contains("listening on") })
        let proxyPort = try #require(proxy.stdoutLines.first?.split(separator: " ").last.flatMap { Int($0) })
        let endpoint = try ServiceEndpoint("https://127.0.0.2:\(emulator.endpoint.port ?? 0)")

        let transport = SocketTransport(
            configuration: .init(caFile: trusted.certificate),
            environment: ["HTTPS_PROXY": "http://fleet%40box:s3cret@127.0.0.1:\(proxyPort)"])
        let client = TrackerClient(region: "eu-west-1", endpoint: endpoint,
                                   credentials: StaticCredentialProvider(emulator.staticCredentials), transport: transport)
        #expect(try await client.batchUpdateDevicePosition(tracker: "fleet", updates: [Self.update]).isEmpty)
        #expect(await ChildProcess.waitUntil(timeout: 5) { proxy.stdoutLines.count >= 3 })
        #expect(proxy.stdoutLines.dropFirst().first == "CONNECT 127.0.0.2:\(emulator.endpoint.port ?? 0) HTTP/1.1")
        // "fleet@box:s3cret" in base64.
        #expect(proxy.stdoutLines.dropFirst(2).first == "Proxy-Authorization: Basic ZmxlZXRAYm94OnMzY3JldA==")

        let direct = SocketTransport(
            configuration: .init(caFile: trusted.certificate),
            environment: ["HTTPS_PROXY": "http://127.0.0.1:\(proxyPort)", "NO_PROXY": "example.com, 127.0.0.2"])
        let directClient = TrackerClient(region: "eu-west-1", endpoint: endpoint,
                                         credentials: StaticCredentialProvider(emulator.staticCredentials), transport: direct)
        // The emulator listens on 127.0.0.1 only: going direct to 127.0.0.2 is refused, where the
        // proxy (which tunnels to 127.0.0.1) would have carried the request.
        do {
            _ = try await directClient.batchUpdateDevicePosition(tracker: "fleet", updates: [Self.update])
            Issue.record("the request went through the proxy despite NO_PROXY")
        } catch {
            #expect("\(error)".contains("cannot connect to 127.0.0.2:\(emulator.endpoint.port ?? 0)"), "\(error)")
        }
        #expect(proxy.stdoutLines.count == 3, "NO_PROXY: no second tunnel")
    }
}

/// Kept-alive connections: one the server closed while it lay idle is replaced without a word;
/// one that fails a moment after its last use is the caller's to retry (within its rate).
@Suite struct KeptAliveConnectionTests {
    /// A server that answers each request on a connection, then closes the connection when the
    /// client sends its second request on it (as a server whose idle timeout just passed does).
    static let script = """
        import socket, sys, threading
        server = socket.socket(); server.bind(("127.0.0.1", 0)); server.listen(8)
        print(server.getsockname()[1], flush=True)
        def serve(conn):
            served = 0
            while True:
                data = b""
                while b"\\r\\n\\r\\n" not in data:
                    chunk = conn.recv(4096)
                    if not chunk: conn.close(); return
                    data += chunk
                if served == 1: conn.close(); return
                conn.sendall(b"HTTP/1.1 200 OK\\r\\nContent-Length: 2\\r\\n\\r\\nok"); served += 1
        while True:
            conn, _ = server.accept(); threading.Thread(target=serve, args=(conn,), daemon=True).start()
        """

    static func request(_ port: Int) -> HTTPRequest {
        HTTPRequest(method: "GET", scheme: "http", host: "127.0.0.1", port: port, path: "/")
    }

    @Test func aConnectionClosedWhileIdleIsReplacedOneFailingAtOnceIsNot() async throws {
        let directory = TestPaths.temporaryDirectory("kept-alive")
        let script = directory.appendingPathComponent("server.py").path
        try Self.script.write(toFile: script, atomically: true, encoding: .utf8)
        let server = try ChildProcess("/usr/bin/python3", [script], directory: directory, name: "kept-alive-server")
        defer { server.terminate() }
        #expect(await ChildProcess.waitUntil(timeout: 10) { !server.stdoutLines.isEmpty })
        let port = try #require(Int(server.stdoutLines.first ?? ""))
        // A `staleAfter` no busy test machine outlasts between two requests.
        var patient = SocketTransport.Configuration()
        patient.staleAfter = .seconds(60)
        let transport = SocketTransport(configuration: patient)
        #expect(try await transport.send(Self.request(port)).bodyText == "ok")
        // At once on the same connection: the server drops it; the failure is the caller's.
        await #expect(throws: HTTPError.self) { try await transport.send(Self.request(port)) }
        #expect(try await transport.send(Self.request(port)).bodyText == "ok", "a new connection")
        // Idle past `staleAfter`: the close is taken for an idle timeout, the request goes again.
        var brief = SocketTransport.Configuration()
        brief.staleAfter = .milliseconds(300)
        let hasty = SocketTransport(configuration: brief)
        #expect(try await hasty.send(Self.request(port)).bodyText == "ok")
        try await Task.sleep(for: .milliseconds(500))
        #expect(try await hasty.send(Self.request(port)).bodyText == "ok")
    }
}
