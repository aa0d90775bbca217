import COpenSSL
import Glibc
import SystemIO

/// One TCP connection, TLS when the scheme is https, optionally through an HTTP proxy's CONNECT
/// tunnel. Blocking I/O with a deadline per operation; one request at a time.
final class HTTPConnection {
    /// Where a connection goes and how; pooled connections are reused for the same key only.
    struct Key: Hashable {
        var scheme: String
        var host: String
        var port: Int
    }

    /// Why a connection failed, before it is given a URL.
    enum Failure: Error, Equatable {
        case timeout
        case connection(String)
        case tls(String)
    }

    let key: Key
    private var fd: Int32
    private var ssl: OpaquePointer?
    /// Whether the TLS handshake resumed an earlier session (an abbreviated handshake: no
    /// certificates on the wire).
    private(set) var resumed = false
    /// Whether a request it carried expected another (`HTTPRequest.expectsAnother`, an upload):
    /// such a connection is kept alive while idle, also after a one-off request in between.
    var expectsAnother = false
    /// Bytes this connection put on its socket and took off it (through a proxy's tunnel, TLS
    /// records with their handshakes): what a metered link counts, without TCP/IP headers.
    private let counts = UnsafeMutablePointer<gpstrackd_tls_bytes>.allocate(capacity: 1)
    /// Of `bytes`, what `takeCountedBytes()` has not handed over yet.
    private var handedOver = 0

    /// Bytes sent and received so far.
    var bytes: Int { Int(counts.pointee.sent + counts.pointee.received) }

    /// The bytes since the last call: each is counted once, by whoever asks.
    func takeCountedBytes() -> Int {
        defer { handedOver = bytes }
        return bytes - handedOver
    }

    /// Connects (through `proxy` for https when given) and completes the TLS handshake, resuming
    /// `session` when the server still accepts it.
    init(key: Key, proxy: ProxySettings.Proxy?, tls: OpaquePointer?, resuming session: TLSSession? = nil,
         deadline: ContinuousClock.Instant) throws(Failure) {
        self.key = key
        counts.initialize(to: gpstrackd_tls_bytes(sent: 0, received: 0))
        if let proxy {
            do throws(Failure) {
                fd = try Self.connect(host: proxy.host, port: proxy.port, deadline: deadline)
            } catch .timeout {
                throw .connection("cannot reach the proxy \(proxy.host):\(proxy.port) (from HTTPS_PROXY): no answer in time")
            } catch let .connection(reason) {
                throw .connection("cannot reach the proxy \(proxy.host):\(proxy.port) (from HTTPS_PROXY): \(reason)")
            } catch {
                throw error
            }
        } else {
            fd = try Self.connect(host: key.host, port: key.port, deadline: deadline)
        }
        do throws(Failure) {
            if let proxy { try tunnel(through: proxy, deadline: deadline) }
            if key.scheme == "https" {
                guard let tls else { throw Failure.tls("no TLS context") }
                try handshake(context: tls, resuming: session, deadline: deadline)
            }
        } catch {
            close()
            throw error
        }
    }

    deinit {
        close()
        counts.deallocate()
    }

    /// Whether an idle connection has heard from its peer. Between HTTP/1.1 exchanges a server has
    /// nothing to say but goodbye (a FIN, a TLS close_notify, a reset): such a connection is
    /// dropped before a request is written into it, which would cost the request's bytes on a
    /// metered link and a failed round trip. One whose peer (or a NAT) vanished silently still
    /// looks quiet; the caller's retry on a new connection covers that. A server's late TLS
    /// message (a session ticket sent after its answer) counts as goodbye too: that costs one
    /// resumed handshake, never a request.
    var peerHasSpoken: Bool {
        var descriptor = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
        // An interrupted or failed poll says nothing: the connection is tried (and, dead, replaced).
        return poll(&descriptor, 1, 0) > 0
    }

    /// Closes once; later calls (and `deinit`) do nothing, so a reused descriptor is never hit.
    func close() {
        if let ssl {
            gpstrackd_tls_close(ssl)
            self.ssl = nil
        }
        if fd >= 0 {
            Glibc.close(fd)
            fd = -1
        }
    }

    // MARK: - Connecting

    private static func connect(host: String, port: Int, deadline: ContinuousClock.Instant) throws(Failure) -> Int32 {
        // The lookup counts against the same deadline as the connection.
        let addresses = try NameResolver().resolve(host: host, port: port, deadline: deadline)
        var lastError = "no address"
        for address in addresses {
            let fd = socket(address.family, address.socketType | Int32(SOCK_CLOEXEC.rawValue), address.proto)
            guard fd >= 0 else { lastError = String(cString: strerror(errno)); continue }
            // Non-blocking connect, so the connect timeout holds; then blocking with timeouts.
            let flags = fcntl(fd, F_GETFL)
            _ = fcntl(fd, F_SETFL, flags | O_NONBLOCK)
            var result = address.bytes.withUnsafeBytes { raw in
                Glibc.connect(fd, raw.baseAddress!.assumingMemoryBound(to: sockaddr.self), socklen_t(raw.count))
            }
            if result != 0, errno == EINPROGRESS {
                var descriptor = pollfd(fd: fd, events: Int16(POLLOUT), revents: 0)
                let ready = poll(&descriptor, 1, Self.milliseconds(until: deadline))
                if ready == 0 {
                    Glibc.close(fd)
                    throw .timeout
                }
                var error: Int32 = 0
                var length = socklen_t(MemoryLayout<Int32>.size)
                getsockopt(fd, SOL_SOCKET, SO_ERROR, &error, &length)
                result = ready > 0 && error == 0 ? 0 : -1
                if error != 0 { errno = error }
            }
            guard result == 0 else {
                lastError = String(cString: strerror(errno))
                Glibc.close(fd)
                continue
            }
            _ = fcntl(fd, F_SETFL, flags)
            var one: Int32 = 1
            setsockopt(fd, Int32(IPPROTO_TCP), TCP_NODELAY, &one, socklen_t(MemoryLayout<Int32>.size))
            return fd
        }
        throw .connection("cannot connect to \(host):\(port): \(lastError)")
    }

    private func tunnel(through proxy: ProxySettings.Proxy, deadline: ContinuousClock.Instant) throws(Failure) {
        var request = "CONNECT \(key.host):\(key.port) HTTP/1.1\r\nHost: \(key.host):\(key.port)\r\n"
        if let authorization = proxy.authorization { request += "Proxy-Authorization: \(authorization)\r\n" }
        request += "\r\n"
        try write(Array(request.utf8), deadline: deadline)
        var parser = HTTPResponseParser(method: "CONNECT")
        var answer: HTTPResponseParser.Complete?
        while answer == nil {
            let bytes = try read(deadline: deadline)
            do throws(HTTPResponseParser.Failure) {
                answer = bytes.isEmpty ? try parser.finish() : try parser.feed(bytes)
            } catch {
                throw .connection("the proxy \(proxy.host):\(proxy.port) gave no tunnel: \(error)")
            }
        }
        guard let answer, (200..<300).contains(answer.response.status) else {
            var status = answer.map { "HTTP \($0.response.status)" } ?? "no answer"
            if answer?.response.status == 407 { status += " (proxy authentication required: check the user and password in HTTPS_PROXY)" }
            throw .connection("the proxy \(proxy.host):\(proxy.port) refused the tunnel: \(status)")
        }
    }

    private func handshake(context: OpaquePointer, resuming session: TLSSession?, deadline: ContinuousClock.Instant) throws(Failure) {
        let isAddress = Self.isAddressLiteral(key.host)
        guard let ssl = gpstrackd_tls_new(context, fd, key.host, isAddress ? 1 : 0, session?.pointer) else {
            throw .tls(Self.tlsError() ?? "cannot set up a TLS connection that checks the name \(key.host)")
        }
        self.ssl = ssl
        gpstrackd_tls_count_bytes(ssl, counts)
        try setTimeouts(deadline)
        if BrokenPipe.withoutSignal({ gpstrackd_tls_connect(ssl) }) != 1 {
            if let failure = gpstrackd_tls_verify_failure(ssl) {
                throw .tls("the server's certificate did not verify: \(String(cString: failure))")
            }
            if errno == EAGAIN || errno == EWOULDBLOCK { throw .timeout }
            throw .tls(Self.tlsError() ?? "handshake failed")
        }
        resumed = gpstrackd_tls_session_reused(ssl) == 1
    }

    /// The session to resume on the next connection to the same server, once it can be (TLS 1.3
    /// sends its ticket after the handshake; it has come with the first answer).
    func session() -> TLSSession? {
        guard let ssl, let copy = gpstrackd_tls_resumable_session(ssl) else { return nil }
        return TLSSession(pointer: copy)
    }

    // MARK: - I/O

    /// What became of a keepalive.
    enum KeepAlive: Equatable {
        case sent
        /// Nothing the server takes in silence exists here (plain http, TLS 1.2).
        case unsupported
        case failed
    }

    /// Puts a few bytes on an idle connection that its server takes in silence (a TLS 1.3
    /// KeyUpdate asking for none back), so that a NAT or a load balancer counting idle time
    /// sees traffic.
    func keepAlive(deadline: ContinuousClock.Instant) -> KeepAlive {
        guard let ssl, gpstrackd_tls_version_13(ssl) == 1 else { return .unsupported }
        guard (try? setTimeouts(deadline)) != nil else { return .failed }
        return BrokenPipe.withoutSignal { gpstrackd_tls_key_update(ssl) } == 1 ? .sent : .failed
    }

    /// Writes everything or fails.
    func write(_ bytes: [UInt8], deadline: ContinuousClock.Instant) throws(Failure) {
        var offset = 0
        while offset < bytes.count {
            try setTimeouts(deadline)
            let count = bytes.withUnsafeBytes { raw -> Int in
                let start = raw.baseAddress! + offset
                if let ssl { return Int(BrokenPipe.withoutSignal { gpstrackd_tls_write(ssl, start, Int32(min(raw.count - offset, Int(Int32.max)))) }) }
                let sent = send(fd, start, raw.count - offset, Int32(MSG_NOSIGNAL))
                if sent > 0 { counts.pointee.sent += UInt64(sent) }
                return sent
            }
            guard count > 0 else { throw failure(reading: false) }
            offset += count
        }
    }

    /// What has arrived (up to 16 KiB), waiting for it until `deadline`; empty at the end of
    /// the stream. The framing is `HTTPResponseParser`'s.
    func read(deadline: ContinuousClock.Instant) throws(Failure) -> ArraySlice<UInt8> {
        try setTimeouts(deadline)
        var chunk = [UInt8](repeating: 0, count: 16_384)
        let count = chunk.withUnsafeMutableBytes { raw -> Int in
            if let ssl { return Int(BrokenPipe.withoutSignal { gpstrackd_tls_read(ssl, raw.baseAddress, Int32(raw.count)) }) }
            let received = recv(fd, raw.baseAddress, raw.count, 0)
            if received > 0 { counts.pointee.received += UInt64(received) }
            return received
        }
        if count == 0 { return [] }
        guard count > 0 else {
            if let ssl, gpstrackd_tls_closed_by_peer(ssl, Int32(count)) == 1 { return [] }
            throw failure(reading: true)
        }
        return chunk[0..<count]
    }

    private func setTimeouts(_ deadline: ContinuousClock.Instant) throws(Failure) {
        let milliseconds = Self.milliseconds(until: deadline)
        guard milliseconds > 0 else { throw .timeout }
        var time = timeval(tv_sec: Int(milliseconds / 1000), tv_usec: suseconds_t(milliseconds % 1000) * 1000)
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &time, socklen_t(MemoryLayout<timeval>.size))
        setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &time, socklen_t(MemoryLayout<timeval>.size))
    }

    private func failure(reading: Bool) -> Failure {
        let code = errno
        if code == EAGAIN || code == EWOULDBLOCK { return .timeout }
        if ssl != nil, let text = Self.tlsError() { return .tls(text) }
        return .connection((reading ? "receiving: " : "sending: ") + String(cString: strerror(code)))
    }

    private static func tlsError() -> String? {
        var text = [CChar](repeating: 0, count: 256)
        return gpstrackd_tls_error(&text, text.count).map { String(cString: $0) }
    }

    static func isAddressLiteral(_ host: String) -> Bool {
        var address = in6_addr()
        return inet_pton(AF_INET, host, &address) == 1 || inet_pton(AF_INET6, host, &address) == 1
    }

    private static func milliseconds(until deadline: ContinuousClock.Instant) -> Int32 {
        let (seconds, attoseconds) = (deadline - .now).components
        let total = seconds * 1000 + attoseconds / 1_000_000_000_000_000
        return Int32(clamping: max(0, total))
    }
}

/// A TLS session (its ticket and keys) kept to resume the next connection to the same server:
/// an abbreviated handshake sends no certificate chain, a few kilobytes less on a cellular link.
final class TLSSession: @unchecked Sendable {
    let pointer: OpaquePointer
    init(pointer: OpaquePointer) { self.pointer = pointer }
    deinit { gpstrackd_tls_session_free(pointer) }

    /// A session from `encoded`'s bytes (OpenSSL loaded); nil when they are not a whole session
    /// that can be resumed.
    convenience init?(encoded bytes: [UInt8]) {
        guard let pointer = bytes.withUnsafeBufferPointer({ buffer -> OpaquePointer? in
            guard let base = buffer.baseAddress, !buffer.isEmpty else { return nil }
            return gpstrackd_tls_session_decode(base, buffer.count)
        }) else { return nil }
        self.init(pointer: pointer)
    }

    /// The session in OpenSSL's encoding (its ticket and the secret that resumes it), to keep
    /// across a restart; nil when it cannot be encoded.
    var encoded: [UInt8]? {
        let count = Int(gpstrackd_tls_session_encode(pointer, nil))
        guard count > 0 else { return nil }
        var bytes = [UInt8](repeating: 0, count: count)
        let written = bytes.withUnsafeMutableBufferPointer { gpstrackd_tls_session_encode(pointer, $0.baseAddress) }
        return Int(written) == count ? bytes : nil
    }
}
