/// An HTTP response: status, headers in order, body.
public struct HTTPResponse: Sendable, Equatable {
    public var status: Int
    public var headers: [(name: String, value: String)]
    public var body: [UInt8]

    public init(status: Int, headers: [(name: String, value: String)] = [], body: [UInt8] = []) {
        self.status = status
        self.headers = headers
        self.body = body
    }

    public func header(_ name: String) -> String? {
        let lower = name.lowercased()
        return headers.last { $0.name.lowercased() == lower }?.value
    }

    public var bodyText: String { String(decoding: body, as: UTF8.self) }

    public static func == (a: HTTPResponse, b: HTTPResponse) -> Bool {
        a.status == b.status && a.body == b.body
            && a.headers.map { "\($0.name):\($0.value)" } == b.headers.map { "\($0.name):\($0.value)" }
    }
}

/// Why a request got no HTTP response.
public enum HTTPError: Error, Sendable, Equatable, CustomStringConvertible {
    /// No response within the connect or total timeout.
    case timeout(url: String, seconds: Double)
    /// DNS, refused or reset connections, proxies.
    case connection(url: String, reason: String)
    /// The server's certificate did not verify, or the TLS handshake failed.
    case tls(url: String, reason: String)
    /// The caller's task was cancelled before the answer came (a stop past its deadline); what
    /// the server made of the request is unknown.
    case cancelled(url: String)

    public var description: String {
        switch self {
        case let .timeout(url, seconds): return "no response from \(url) within \(seconds) s"
        case let .connection(url, reason): return "cannot reach \(url): \(reason)"
        case let .tls(url, reason): return "TLS with \(url) failed: \(reason) (certificates are always verified)"
        case let .cancelled(url): return "the request to \(url) was abandoned unanswered (stopping)"
        }
    }
}

/// Sends HTTP requests. The production transport is `SocketTransport`; tests may substitute another.
public protocol HTTPTransport: Sendable {
    func send(_ request: HTTPRequest) async throws(HTTPError) -> HTTPResponse
    /// Bytes sent and received on the wire so far (TLS records and handshakes included).
    var bytesOnTheWire: Int { get }
}

extension HTTPTransport {
    public var bytesOnTheWire: Int { 0 }
}
