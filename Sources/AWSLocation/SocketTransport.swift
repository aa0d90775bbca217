import COpenSSL
import Dispatch
import Glibc
import Synchronization
import TrackingCore

/// HTTP/1.1 over the kernel's sockets and OpenSSL's libssl: kept-alive connections in a small
/// pool, connect and total timeouts, TLS 1.2+ with the certificate and host name always
/// verified, `HTTPS_PROXY`/`NO_PROXY` honoured (a CONNECT tunnel; TLS stays end to end).
///
/// Chosen over libcurl for a small box: libcurl loads about twenty libraries (gnutls, Kerberos,
/// LDAP, SSH, RTMP, ...) that the tracker API never needs, 4.4 MB of resident memory before the
/// first request; over URLSession, whose FoundationNetworking costs some 20 MB. Requests block a
/// thread, so they run on serial Dispatch queues of their own (which get threads of their own),
/// never on Swift's cooperative pool, nor on a concurrent queue sharing that pool's threads.
///
/// Reconnects resume the server's last TLS session (tickets), so only the first connection
/// carries the certificate chain; idle connections that carry uploads (`HTTPRequest.expectsAnother`)
/// are kept open through a NAT with keepalives (`IdleKeepAlive`) for a while, so that fewer
/// reconnects happen at all.
///
/// Trust: the system's hashed certificate directory (`/etc/ssl/certs`), looked up per issuer
/// rather than loaded whole; `SSL_CERT_DIR`/`SSL_CERT_FILE` as OpenSSL reads them; or `caFile`.
public final class SocketTransport: HTTPTransport {
    public struct Configuration: Sendable {
        public var connectTimeout: Double = 10
        public var totalTimeout: Double = 30
        /// PEM certificates to trust instead of the system's (a private CA).
        public var caFile: String?
        /// Idle connections kept for reuse.
        public var maxIdle = 4
        /// Whether a reconnect resumes the server's last TLS session (off only to measure what it saves).
        public var resumesSessions = true
        /// How long a connection lies idle before a failure on it at once is taken for a close
        /// while idle (and the request goes again on a new connection).
        public var staleAfter: Duration = .seconds(2)
        /// Keepalives on idle connections (nil: none), so that the next request finds its
        /// connection open through a path that closes silent ones.
        public var keepAlive: IdleKeepAlive? = IdleKeepAlive()
        /// Where each server's last TLS session is kept across restarts (`TLSSessionFile`), so
        /// that the first connection after one resumes; nil: in memory only.
        public var sessionFile: String?

        public init(connectTimeout: Double = 10, totalTimeout: Double = 30, caFile: String? = nil) {
            self.connectTimeout = connectTimeout
            self.totalTimeout = totalTimeout
            self.caFile = caFile
        }
    }

    public let configuration: Configuration
    private let proxies: ProxySettings
    private let queues = (0..<8).map { DispatchQueue(label: "gpstrackd.http.\($0)") }
    /// Requests on or waiting for each queue: a request goes to the least busy, so one stuck
    /// request (a server that does not answer until the timeout) holds up no other.
    private let load = Mutex([Int](repeating: 0, count: 8))
    private let idle = Mutex<[ConnectionBox]>([])
    private let tls = Mutex<TLSContext?>(nil)
    /// The last resumable TLS session of each server.
    private let sessions = Mutex<[HTTPConnection.Key: TLSSession]>([:])
    private let handshakes = Mutex(TLSHandshakes())
    private let wire = Mutex(0)
    private let keepAlives = Mutex(0)
    /// Where idle connections are sent their keepalives, one at a time.
    private let keepAliveQueue = DispatchQueue(label: "gpstrackd.http.keepalive")

    /// Bytes sent and received on every connection so far: TLS records with their handshakes,
    /// through a proxy's tunnel, as a metered SIM counts them (without TCP/IP headers).
    public var bytesOnTheWire: Int { wire.withLock { $0 } }

    /// TLS handshakes so far, and how many of them resumed a session.
    public struct TLSHandshakes: Sendable, Equatable {
        public var full = 0
        public var resumed = 0
        public init(full: Int = 0, resumed: Int = 0) {
            self.full = full
            self.resumed = resumed
        }
    }

    public var tlsHandshakes: TLSHandshakes { handshakes.withLock { $0 } }

    /// Keepalives sent on idle connections so far.
    public var keepAlivesSent: Int { keepAlives.withLock { $0 } }

    /// Connections lying idle in the pool, kept for the next request.
    public var idleConnections: Int { idle.withLock { $0.count } }

    /// What is wrong with `HTTPS_PROXY` in `environment` (the variable and why), when it is set
    /// and cannot be used; checked at start so that a mistyped proxy is not silently bypassed.
    public static func proxyProblem(environment: [String: String]) -> (variable: String, reason: String)? {
        ProxySettings.problem(environment: environment)
    }

    public init(configuration: Configuration = Configuration(), environment: [String: String] = SocketTransport.processEnvironment()) {
        self.configuration = configuration
        proxies = ProxySettings(environment: environment)
    }

    /// The variables the transport reads, from this process's environment.
    public static func processEnvironment() -> [String: String] {
        var environment: [String: String] = [:]
        for name in ["https_proxy", "HTTPS_PROXY", "no_proxy", "NO_PROXY"] {
            if let value = getenv(name) { environment[name] = String(cString: value) }
        }
        return environment
    }

    /// Sends `request` on a worker thread. A cancelled caller is answered `.cancelled` at once:
    /// the exchange cannot be interrupted mid-call, so it runs on to its own timeout, its answer
    /// dropped and its connection closed, while the caller (an uploader stopping) moves on.
    public func send(_ request: HTTPRequest) async throws(HTTPError) -> HTTPResponse {
        let answer = PendingAnswer()
        let result: Result<HTTPResponse, HTTPError> = await withTaskCancellationHandler {
            await withCheckedContinuation { continuation in
                guard answer.wait(with: continuation) else { return }
                let index = load.withLock { counts -> Int in
                    let index = Self.leastBusy(counts)
                    counts[index] += 1
                    return index
                }
                queues[index].async { [self] in
                    let result = perform(request)
                    load.withLock { $0[index] -= 1 }
                    answer.resume(with: result)
                }
            }
        } onCancel: {
            answer.resume(with: .failure(.cancelled(url: request.url)))
        }
        return try result.get()
    }

    /// The first of the least busy workers (a free one when there is one).
    static func leastBusy(_ counts: [Int]) -> Int {
        counts.indices.min { counts[$0] < counts[$1] } ?? 0
    }

    // MARK: - One exchange

    private func perform(_ request: HTTPRequest) -> Result<HTTPResponse, HTTPError> {
        let start = ContinuousClock.now
        let deadline = start + .milliseconds(Int64(configuration.totalTimeout * 1000))
        let key = HTTPConnection.Key(
            scheme: request.scheme, host: request.host, port: request.port ?? (request.scheme == "https" ? 443 : 80))
        let head = Array(requestHead(request).utf8)
        // A kept-alive connection the server (or a NAT) closed while it lay idle fails before any
        // answer: then the request goes once more on a new connection. One used a moment ago
        // that fails has met something else (the server dropped it mid-request), and the
        // caller's retry policy decides, within its request rate.
        for attempt in 0..<2 {
            let idle = attempt == 0 ? takeIdle(key) : nil
            let reused = idle?.connection
            let connection: HTTPConnection
            do {
                if let reused {
                    connection = reused
                } else {
                    let connectDeadline = min(deadline, ContinuousClock.now + .milliseconds(Int64(configuration.connectTimeout * 1000)))
                    let https = key.scheme == "https"
                    connection = try HTTPConnection(
                        key: key, proxy: proxies.proxy(scheme: key.scheme, host: key.host),
                        tls: https ? try context() : nil, resuming: https && configuration.resumesSessions ? sessions.withLock { $0[key] } : nil,
                        deadline: connectDeadline)
                    if https { handshakes.withLock { connection.resumed ? ($0.resumed += 1) : ($0.full += 1) } }
                }
            } catch {
                return .failure(httpError(error, request))
            }
            do {
                try connection.write(head + request.body, deadline: deadline)
                let (response, keepAlive) = try readResponse(connection, method: request.method, deadline: deadline)
                if reused == nil, let session = connection.session() { keep(session, for: key) }
                // Counted before it goes back idle: another request may take it from there.
                let counted = connection.takeCountedBytes()
                wire.withLock { $0 += counted }
                connection.expectsAnother = connection.expectsAnother || request.expectsAnother
                if keepAlive { putIdle(connection) } else { connection.close() }
                return .success(response)
            } catch {
                let counted = connection.takeCountedBytes()
                wire.withLock { $0 += counted }
                connection.close()
                if let idle, ContinuousClock.now - idle.since >= configuration.staleAfter, case .connection = error { continue }
                return .failure(httpError(error, request))
            }
        }
        return .failure(.connection(url: request.url, reason: "the connection failed twice"))
    }

    /// What the service reads and nothing more: each request's head crosses a metered link, so it
    /// carries no `User-Agent` (the service does not need one) and no `Connection` (HTTP/1.1 keeps
    /// the connection open by default).
    private func requestHead(_ request: HTTPRequest) -> String {
        var head = "\(request.method) \(request.path)\(request.query.isEmpty ? "" : "?" + request.query) HTTP/1.1\r\n"
        head += "Host: \(request.hostHeader)\r\n"
        for (name, value) in request.headers where name.lowercased() != "host" && name.lowercased() != "content-length" {
            head += "\(name): \(value)\r\n"
        }
        if request.method != "GET" || !request.body.isEmpty { head += "Content-Length: \(request.body.count)\r\n" }
        return head + "\r\n"
    }

    /// Status, headers and body; whether the connection may carry another request. The bytes
    /// go through `HTTPResponseParser`; this only reads them.
    private func readResponse(_ connection: HTTPConnection, method: String, deadline: ContinuousClock.Instant)
        throws(HTTPConnection.Failure) -> (HTTPResponse, Bool)
    {
        var parser = HTTPResponseParser(method: method)
        while true {
            let bytes = try connection.read(deadline: deadline)
            let complete: HTTPResponseParser.Complete?
            do throws(HTTPResponseParser.Failure) {
                complete = bytes.isEmpty ? try parser.finish() : try parser.feed(bytes)
            } catch {
                throw .connection(error.description)
            }
            // Bytes after the answer were not asked for: such a connection is not reused.
            if let complete { return (complete.response, complete.keepAlive && complete.leftover.isEmpty) }
        }
    }

    // MARK: - Pool and TLS context

    /// Closes the connections kept for reuse (the network changed; tests): the next request
    /// connects anew, resuming its TLS session.
    public func closeIdleConnections() {
        let closing = idle.withLock { pool -> [ConnectionBox] in
            defer { pool.removeAll() }
            return pool
        }
        for box in closing { box.connection.close() }
    }

    /// The newest idle connection for `key` that its server has not closed; the closed ones go.
    private func takeIdle(_ key: HTTPConnection.Key) -> ConnectionBox? {
        while let box = idle.withLock({ pool -> ConnectionBox? in
            guard let index = pool.lastIndex(where: { $0.connection.key == key }) else { return nil }
            return pool.remove(at: index)
        }) {
            guard box.connection.peerHasSpoken else { return box }
            box.connection.close()
        }
        return nil
    }

    /// Pools a connection a request has just left, kept alive when it carries uploads.
    private func putIdle(_ connection: HTTPConnection) {
        let now = ContinuousClock.now
        putIdle(ConnectionBox(connection: connection, since: now, lastTraffic: now), keptAlive: connection.expectsAnother)
    }

    /// Pools `box` (the oldest idle connection goes when there are too many), and plans its
    /// next keepalive when `keptAlive`.
    private func putIdle(_ box: ConnectionBox, keptAlive: Bool = true) {
        let evicted = idle.withLock { pool -> ConnectionBox? in
            pool.append(box)
            return pool.count > configuration.maxIdle ? pool.removeFirst() : nil
        }
        evicted?.connection.close()
        if keptAlive, evicted?.connection !== box.connection { scheduleKeepAlive(box) }
    }

    // MARK: - Keepalives

    /// Plans `box`'s next keepalive, if it gets one. The plan names the connection and when it
    /// last carried bytes: a request that takes the connection meanwhile makes the plan stale.
    private func scheduleKeepAlive(_ box: ConnectionBox) {
        guard let policy = configuration.keepAlive,
              let due = policy.next(lastRequest: box.since, lastTraffic: box.lastTraffic) else { return }
        let (connection, lastTraffic) = (ObjectIdentifier(box.connection), box.lastTraffic)
        keepAliveQueue.asyncAfter(deadline: .now() + max(0, (due - .now).seconds)) { [weak self] in
            self?.keepAlive(connection, lastTraffic: lastTraffic)
        }
    }

    /// Sends the planned keepalive, when the connection still lies idle as planned: taken out of
    /// the pool while it is sent (no request shares it), put back with its new traffic time. A
    /// connection its server closed meanwhile, one with another idle to the same server, or one
    /// whose keepalive failed, is dropped; one that cannot have a keepalive (TLS 1.2) goes back
    /// to wait for the path to close it.
    private func keepAlive(_ connection: ObjectIdentifier, lastTraffic: ContinuousClock.Instant) {
        guard let box = idle.withLock({ pool -> ConnectionBox? in
            guard let index = pool.firstIndex(where: { ObjectIdentifier($0.connection) == connection && $0.lastTraffic == lastTraffic })
            else { return nil }
            return pool.remove(at: index)
        }) else { return }
        // One connection a server is kept open: the next request takes the newest, and a second
        // is wanted only while requests overlap (a backlog draining), after which each would
        // cost its keepalives for the whole window. The one that is due while another waits goes.
        let sibling = idle.withLock { pool in pool.contains { $0.connection.key == box.connection.key } }
        guard !sibling, !box.connection.peerHasSpoken else { return box.connection.close() }
        let outcome = box.connection.keepAlive(deadline: .now + .milliseconds(Int64(configuration.connectTimeout * 1000)))
        let counted = box.connection.takeCountedBytes()
        wire.withLock { $0 += counted }
        switch outcome {
        case .sent:
            keepAlives.withLock { $0 += 1 }
            putIdle(ConnectionBox(connection: box.connection, since: box.since, lastTraffic: .now))
        case .unsupported:
            putIdle(box, keptAlive: false)
        case .failed:
            box.connection.close()
        }
    }

    private func context() throws(HTTPConnection.Failure) -> OpaquePointer {
        let result: Result<OpaquePointer, HTTPConnection.Failure> = tls.withLock { cached in
            if let cached { return .success(cached.pointer) }
            do throws(OpenSSL.Unavailable) { try OpenSSL.load() } catch { return .failure(.tls(error.description)) }
            var reason = [CChar](repeating: 0, count: 512)
            let environment = getenv("SSL_CERT_FILE") != nil || getenv("SSL_CERT_DIR") != nil
            guard let pointer = gpstrackd_tls_context(configuration.caFile, environment ? 1 : 0, &reason, reason.count) else {
                return .failure(.tls(OpenSSL.text(reason)))
            }
            cached = TLSContext(pointer: pointer)
            // The sessions the last run kept, read once OpenSSL is there to decode them.
            if let path = configuration.sessionFile, configuration.resumesSessions {
                let stored = TLSSessionFile(path: path).load()
                sessions.withLock { $0.merge(stored) { current, _ in current } }
            }
            return .success(pointer)
        }
        return try result.get()
    }

    /// Keeps `session` to resume the next connection to `key`'s server, and in the session file
    /// for the next run. A file that cannot be written costs the next run one full handshake.
    private func keep(_ session: TLSSession, for key: HTTPConnection.Key) {
        sessions.withLock { kept in
            kept[key] = session
            if let path = configuration.sessionFile { try? TLSSessionFile(path: path).save(kept) }
        }
    }

    private func httpError(_ failure: HTTPConnection.Failure, _ request: HTTPRequest) -> HTTPError {
        switch failure {
        case .timeout: return .timeout(url: request.url, seconds: configuration.totalTimeout)
        case let .connection(reason): return .connection(url: request.url, reason: reason)
        case let .tls(reason): return .tls(url: request.url, reason: reason)
        }
    }
}

/// A connection in the idle pool (used by one request at a time).
private struct ConnectionBox: @unchecked Sendable {
    let connection: HTTPConnection
    /// When it was put back idle (its last request ended).
    let since: ContinuousClock.Instant
    /// When it last carried bytes: its last request, or its last keepalive.
    let lastTraffic: ContinuousClock.Instant
}

/// The shared `SSL_CTX`, freed with the transport.
private final class TLSContext: @unchecked Sendable {
    let pointer: OpaquePointer
    init(pointer: OpaquePointer) { self.pointer = pointer }
    deinit { gpstrackd_tls_context_free(pointer) }
}
