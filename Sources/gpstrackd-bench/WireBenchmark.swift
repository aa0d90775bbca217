// Bytes on the wire per position: positions trickled one by one through the uploader to the
// emulator over TLS, through a relay that counts every byte and closes a connection left idle (as a
// cellular NAT or a load balancer does), once resuming TLS sessions and once, the reference in the
// same run, with a full handshake for every connection.
import AWSLocation
import Foundation
import Spool
import Synchronization
import TestSupport
import TrackingCore
import Uploader

/// A loopback TCP relay to `target` that counts the bytes each way and closes a connection idle
/// for `idleClose` seconds.
final class ByteCountingRelay: Sendable {
    struct Counts: Sendable { var up = 0, down = 0, connections = 0 }

    let port: UInt16
    private let listener: Int32
    private let target: UInt16
    private let idleClose: Double
    private let counts = Mutex(Counts())

    var counted: Counts { counts.withLock { $0 } }

    init(target: UInt16, idleClose: Double) {
        self.target = target
        self.idleClose = idleClose
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        var address = Self.loopback(port: 0)
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                precondition(bind(fd, $0, length) == 0 && listen(fd, 16) == 0 && getsockname(fd, $0, &length) == 0)
            }
        }
        listener = fd
        port = UInt16(bigEndian: address.sin_port)
        Thread { [self] in acceptLoop() }.start()
    }

    static func loopback(port: UInt16) -> sockaddr_in {
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = port.bigEndian
        return address
    }

    private func acceptLoop() {
        while true {
            let client = accept(listener, nil, nil)
            guard client >= 0 else { return }
            let server = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
            var address = Self.loopback(port: target)
            let connected = withUnsafePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(server, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) == 0 }
            }
            guard connected else { close(client); close(server); continue }
            counts.withLock { $0.connections += 1 }
            Thread { [self] in pump(client, server) }.start()
        }
    }

    private func pump(_ client: Int32, _ server: Int32) {
        defer { close(client); close(server) }
        var buffer = [UInt8](repeating: 0, count: 65_536)
        var lastByte = ContinuousClock.now
        while ContinuousClock.now - lastByte < .milliseconds(Int64(idleClose * 1000)) {
            var fds = [pollfd(fd: client, events: Int16(POLLIN), revents: 0), pollfd(fd: server, events: Int16(POLLIN), revents: 0)]
            guard poll(&fds, 2, 50) >= 0 else { return }
            for (index, entry) in fds.enumerated() where entry.revents != 0 {
                let from = index == 0 ? client : server, to = index == 0 ? server : client
                let count = read(from, &buffer, buffer.count)
                guard count > 0, send(to, buffer, count, Int32(MSG_NOSIGNAL)) == count else { return }
                counts.withLock { index == 0 ? ($0.up += count) : ($0.down += count) }
                lastByte = .now
            }
        }
    }
}

/// The emulator's port, from `--endpoint`: what the relay forwards to.
func emulatorPort(_ endpoint: String) -> UInt16 {
    guard let port = URL(string: endpoint)?.port.map(UInt16.init) else { print("wire needs --endpoint https://localhost:PORT"); exit(64) }
    return port
}

/// A tracker client whose requests go through `relay`, signed with the documentation's example
/// keys (the emulator's for these benchmarks).
func clientThrough(_ relay: ByteCountingRelay, transport: SocketTransport) throws -> TrackerClient {
    TrackerClient(
        region: "us-east-1", endpoint: try ServiceEndpoint("https://localhost:\(relay.port)"),
        credentials: StaticCredentialProvider(Credentials(
            accessKeyID: "AKIDEXAMPLE", secretAccessKey: "wJalrXUtnFEMI/K7MDENG+bPxRfiCYEXAMPLEKEY", source: "benchmark")),
        transport: transport)
}

/// Ends a run's traffic before its bytes are read: the idle connections closed (quietly, nothing
/// sent), again after a keepalive that was being sent at the first close has had time to finish,
/// then a moment for the relay to pass the last bytes. Read while keepalives still went, the
/// transport's count could hold one that the relay had not passed yet (27 bytes).
func settle(_ transport: SocketTransport) async throws {
    transport.closeIdleConnections()
    try await Task.sleep(for: .milliseconds(200))
    transport.closeIdleConnections()
    try await Task.sleep(for: .milliseconds(200))
}

/// The transport's keepalives for a run: every `seconds` (nil or 0: none), the window scaled as
/// the time is.
func keepAlive(every seconds: Double?, speedup: Double = 1) -> IdleKeepAlive? {
    guard let seconds, seconds > 0 else { return nil }
    return IdleKeepAlive(every: .milliseconds(Int64(seconds / speedup * 1000)), window: IdleKeepAlive().window / speedup)
}

func benchmarkWire(endpoint: String, caFile: String, positions: Int, every: Int, idleClose: Double, keepAliveEvery: Double?) async throws {
    let port = emulatorPort(endpoint)
    say("wire: \(positions) positions, one every \(every) ms, each its own request, through a relay closing connections idle \(fixed(idleClose, 1)) s"
        + (keepAliveEvery.map { $0 > 0 ? ", keepalives every \(fixed($0, 1)) s" : "" } ?? ""))
    line("figure", "value", "target")
    var perPosition: [Bool: Double] = [:]
    for resuming in [false, true] {
        let relay = ByteCountingRelay(target: port, idleClose: idleClose)
        // Its own spool: the tests run several wire benchmarks at once.
        let directory = scratchDirectory("wire-\(getpid())")
        system("rm -rf '\(directory)'")
        defer { system("rm -rf '\(directory)'") }
        let spool = try await Spool.open(.init(directory: directory))
        var transportConfiguration = SocketTransport.Configuration(caFile: caFile)
        transportConfiguration.resumesSessions = resuming
        transportConfiguration.keepAlive = keepAlive(every: keepAliveEvery)
        let transport = SocketTransport(configuration: transportConfiguration)
        let client = try clientThrough(relay, transport: transport)
        let uploader = Uploader(configuration: .init(tracker: "bench", deviceID: "bench-device"), spool: spool, client: client)
        let running = Task { await uploader.run() }
        for n in 0..<positions {
            try await spool.append(position(n))
            try await Task.sleep(for: .milliseconds(every))
        }
        while try await spool.statistics().queued > 0 { try await Task.sleep(for: .milliseconds(100)) }
        uploader.stop()
        await running.value
        try await settle(transport)
        let counted = relay.counted
        let bytes = Double(counted.up + counted.down) / Double(positions)
        perPosition[resuming] = bytes
        let handshakes = transport.tlsHandshakes
        let label = resuming ? "resuming TLS sessions" : "full handshakes (reference)"
        // Every position here meets a closed connection (the worst case): issue 18's 850 bytes are
        // for a drive, with few reconnects (`--drive`).
        line("bytes per position, \(label)", fixed(bytes, 0) + " (up \(counted.up), down \(counted.down))", "")
        line("connections, \(label)", "\(counted.connections): \(handshakes.full) full, \(handshakes.resumed) resumed handshakes", "")
        line("keepalives, \(label)", "\(transport.keepAlivesSent)", "")
        // What `data-budget` spends: the transport's own count against the relay's. A request
        // written into a connection the relay had closed would put it above: it left the device
        // (a SIM bills it) and never reached the relay.
        line("bytes counted by the transport / the relay, \(label)", fixed(Double(client.bytesOnTheWire) / Double(counted.up + counted.down), 3)
             + " (\(client.bytesOnTheWire) / \(counted.up + counted.down))", ">= 1.000")
    }
    line("bytes per position, resuming / full", fixed(perPosition[true]! / perPosition[false]!, 2), "")
}

/// Issue 18's figure: a recorded drive (`drive`, `gpstrackd watch` lines) through the default
/// filter, each kept position handed to the uploader when the filter keeps it, with default
/// upload settings (or `uploadInterval`), through a relay that closes connections idle for 60 s
/// (a cellular NAT, a load balancer), with the transport's keepalives every `keepAliveEvery`
/// seconds (0: none). Time runs `speedup` times faster, the upload interval, the keepalives and
/// the relay's idle timeout with it, so the same requests meet the same reconnects as in real time.
func benchmarkWireDrive(endpoint: String, caFile: String, drive: String, speedup: Double, uploadInterval: Double?,
                        keepAliveEvery: Double) async throws {
    let port = emulatorPort(endpoint)
    let fixes = try String(contentsOfFile: drive, encoding: .utf8).split(whereSeparator: \.isNewline).map { try LocationLine.parse(String($0)) }
    guard let first = fixes.first else { print("\(drive) holds no fixes"); exit(65) }
    say("wire, a drive: \(fixes.count) fixes of \(drive) in \(fixed(first.time.seconds(to: fixes.last!.time) / speedup, 0)) s, \(fixed(speedup, 0))x real time"
        + (uploadInterval.map { ", upload-interval \(fixed($0, 0)) s" } ?? "")
        + (keepAliveEvery > 0 ? ", keepalives every \(fixed(keepAliveEvery, 0)) s" : ", no keepalives"))
    let relay = ByteCountingRelay(target: port, idleClose: 60 / speedup)
    let directory = scratchDirectory("wire-drive-\(getpid())")
    system("rm -rf '\(directory)'")
    defer { system("rm -rf '\(directory)'") }
    let spool = try await Spool.open(.init(directory: directory))
    var transportConfiguration = SocketTransport.Configuration(caFile: caFile)
    transportConfiguration.keepAlive = keepAlive(every: keepAliveEvery, speedup: speedup)
    let transport = SocketTransport(configuration: transportConfiguration)
    let client = try clientThrough(relay, transport: transport)
    var configuration = Uploader.Configuration(tracker: "bench", deviceID: "bench-device")
    configuration.uploadInterval = (uploadInterval ?? configuration.uploadInterval) / speedup
    let uploader = Uploader(configuration: configuration, spool: spool, client: client)
    let running = Task { await uploader.run() }
    // Fix times as a receiver gives them: whole seconds, as far apart as on the road, so each
    // SampleTime travels without milliseconds as it would (compressed, most carried 4 bytes of
    // them). Compressed, they begin before now by the time the replay saves, so none is ever
    // ahead of the clock: a fix `o` seconds in is handed over at `o / speedup` from now and
    // carries now - duration (1 - 1 / speedup) + o, which is earlier while o <= duration.
    let duration = first.time.seconds(to: fixes.last!.time)
    let start = SystemClock.now().adding(seconds: -duration * (1 - 1 / speedup))
    let began = FixTime(nanosecondsSince1970: start.nanosecondsSince1970 - start.nanosecondsSince1970 % 1_000_000_000)
    let wall = ContinuousClock.now
    func replayed(_ time: FixTime) -> FixTime { began.adding(seconds: first.time.seconds(to: time)) }
    var chain = FilterChain(configuration: FilterConfiguration())
    var kept = 0
    func hand(_ decided: [KeptLocation]) async throws {
        for var position in decided.map(\.location) {
            position.time = replayed(position.time)
            try await spool.append(position)
            kept += 1
        }
    }
    for fix in fixes {
        try await Task.sleep(until: wall + .milliseconds(Int64(first.time.seconds(to: fix.time) / speedup * 1000)))
        try await hand(chain.process(fix, clock: ClockReading(now: fix.time, synchronized: true)).kept)
    }
    try await hand(chain.finish())
    while try await spool.statistics().queued > 0 { try await Task.sleep(for: .milliseconds(100)) }
    uploader.stop()
    await running.value
    try await settle(transport)
    let counted = relay.counted, handshakes = transport.tlsHandshakes
    // The same figures without keepalives are the reference run's, named apart.
    let name = keepAliveEvery > 0 ? "drive" : "drive without keepalives (reference)"
    line("figure", "value", "target")
    line("\(name): positions kept, requests", "\(kept), \(uploader.statistics.requests)", "")
    line("\(name): connections", "\(counted.connections): \(handshakes.full) full, \(handshakes.resumed) resumed handshakes",
         "every one after the first resumed")
    line("\(name): keepalives", "\(transport.keepAlivesSent)", "")
    // To a tenth of a byte: the target is a bound, and 850.3 printed as 850 would read as met.
    line("\(name): bytes per position through the relay", fixed(Double(counted.up + counted.down) / Double(kept), 1)
         + " (up \(counted.up), down \(counted.down))", keepAliveEvery > 0 ? "<= 850" : "")
    line("\(name): bytes per position the transport counted", fixed(Double(client.bytesOnTheWire) / Double(kept), 1), keepAliveEvery > 0 ? "<= 850" : "")
}

/// What a restart costs on the wire: `starts` transports in turn (the daemon started anew each
/// time), each making one upload through the counting relay, with each server's TLS session kept
/// in a file across starts (`SocketTransport.Configuration.sessionFile`, the daemon's
/// `tls-sessions.json`) and, as the reference, without it.
func benchmarkWireRestarts(endpoint: String, caFile: String, starts: Int) async throws {
    let port = emulatorPort(endpoint)
    say("wire: \(starts) starts, one upload each, with the TLS sessions kept across starts and without")
    line("figure", "value", "target")
    var perStart: [Bool: Double] = [:]
    for keeping in [false, true] {
        let directory = scratchDirectory("wire-restarts-\(getpid())")
        system("rm -rf '\(directory)' && mkdir -p '\(directory)'")
        defer { system("rm -rf '\(directory)'") }
        let relay = ByteCountingRelay(target: port, idleClose: 60)
        var handshakes = SocketTransport.TLSHandshakes()
        for n in 0..<starts {
            var configuration = SocketTransport.Configuration(caFile: caFile)
            configuration.sessionFile = keeping ? directory + "/tls-sessions.json" : nil
            let transport = SocketTransport(configuration: configuration)
            let client = try clientThrough(relay, transport: transport)
            let update = DevicePositionUpdate(deviceID: "bench-device", location: position(n))
            _ = try await client.batchUpdateDevicePosition(tracker: "bench", updates: [update])
            transport.closeIdleConnections()
            handshakes.full += transport.tlsHandshakes.full
            handshakes.resumed += transport.tlsHandshakes.resumed
        }
        let counted = relay.counted
        let bytes = Double(counted.up + counted.down) / Double(starts)
        perStart[keeping] = bytes
        let label = keeping ? "sessions kept across starts" : "in memory only (reference)"
        line("bytes per start, \(label)", fixed(bytes, 0) + " (up \(counted.up), down \(counted.down))", "")
        line("handshakes, \(label)", "\(handshakes.full) full, \(handshakes.resumed) resumed", "")
    }
    line("bytes per start, kept / reference", fixed(perStart[true]! / perStart[false]!, 2), "")
}
