/// An HTTP request as the signer and the transport see it.
public struct HTTPRequest: Sendable, Equatable {
    public var method: String
    /// `https` or `http`.
    public var scheme: String
    public var host: String
    public var port: Int?
    /// The path as sent on the wire (already percent-encoded).
    public var path: String
    /// The query string as sent on the wire, without `?`.
    public var query: String
    /// Headers in order; names as given.
    public var headers: [(name: String, value: String)]
    public var body: [UInt8]
    /// Whether the connection this request leaves idle is worth keepalives
    /// (`SocketTransport.Configuration.keepAlive`): true for an upload, which another follows
    /// within a minute or two; false for a credential refresh or a tracker description, which
    /// come hours apart, so that their keepalives would keep open what nothing takes.
    public var expectsAnother: Bool

    public init(
        method: String, scheme: String = "https", host: String, port: Int? = nil, path: String, query: String = "",
        headers: [(name: String, value: String)] = [], body: [UInt8] = [], expectsAnother: Bool = false
    ) {
        self.method = method
        self.scheme = scheme
        self.host = host
        self.port = port
        self.path = path
        self.query = query
        self.headers = headers
        self.body = body
        self.expectsAnother = expectsAnother
    }

    /// The `Host` header value: the host, with the port when it is not the scheme's default.
    public var hostHeader: String {
        guard let port, !(scheme == "https" && port == 443), !(scheme == "http" && port == 80) else { return host }
        return "\(host):\(port)"
    }

    public var url: String {
        "\(scheme)://\(hostHeader)\(path)" + (query.isEmpty ? "" : "?\(query)")
    }

    /// The first value of a header, compared case-insensitively.
    public func header(_ name: String) -> String? {
        let lower = name.lowercased()
        return headers.first { $0.name.lowercased() == lower }?.value
    }

    public mutating func setHeader(_ name: String, _ value: String) {
        let lower = name.lowercased()
        headers.removeAll { $0.name.lowercased() == lower }
        headers.append((name, value))
    }

    public static func == (a: HTTPRequest, b: HTTPRequest) -> Bool {
        a.method == b.method && a.url == b.url && a.body == b.body && a.expectsAnother == b.expectsAnother
            && a.headers.map { "\($0.name):\($0.value)" } == b.headers.map { "\($0.name):\($0.value)" }
    }
}
