import Glibc

/// Where a service listens: `https://host[:port]`, or `http://` for a loopback test endpoint only.
public struct ServiceEndpoint: Sendable, Equatable, CustomStringConvertible {
    public var scheme: String
    public var host: String
    public var port: Int?

    /// Why an endpoint text was refused.
    public struct Invalid: Error, Sendable, Equatable, CustomStringConvertible {
        public var text: String
        public var reason: String
        public var description: String { "endpoint '\(text)' \(reason)" }
    }

    public init(scheme: String = "https", host: String, port: Int? = nil) {
        self.scheme = scheme
        self.host = host
        self.port = port
    }

    /// Parses `https://host[:port]` (a trailing `/` is allowed). Plain `http` is accepted only for
    /// loopback hosts (127.0.0.0/8, ::1, localhost): TLS is never skipped for a real service.
    public init(_ text: String) throws(Invalid) {
        var rest = Substring(text)
        if rest.hasSuffix("/") { rest = rest.dropLast() }
        guard let schemeEnd = rest.firstRange(of: "://") else {
            throw Invalid(text: text, reason: "must start with https:// (for example https://tracking.geo.eu-west-1.amazonaws.com)")
        }
        let scheme = rest[..<schemeEnd.lowerBound].lowercased()
        let authority = rest[schemeEnd.upperBound...]
        guard scheme == "https" || scheme == "http" else { throw Invalid(text: text, reason: "must use https") }
        guard !authority.isEmpty, !authority.contains("/"), !authority.contains("?"), !authority.contains("#") else {
            throw Invalid(text: text, reason: "must be scheme://host[:port] without a path")
        }
        guard !authority.contains("@") else {
            throw Invalid(text: text, reason: "must not carry user information (user@ or user:password@); credentials never go in the endpoint")
        }
        var host = String(authority)
        var port: Int?
        if let colon = authority.lastIndex(of: ":"), !authority.hasSuffix("]") {
            guard let p = Int(authority[authority.index(after: colon)...]), (1...65535).contains(p) else {
                throw Invalid(text: text, reason: "has an invalid port")
            }
            port = p
            host = String(authority[..<colon])
        }
        if host.hasPrefix("["), host.hasSuffix("]") { host = String(host.dropFirst().dropLast()) }
        if scheme == "http", !Self.isLoopback(host) {
            throw Invalid(text: text, reason: "uses plain http, which is allowed only for loopback test endpoints; use https")
        }
        self.init(scheme: scheme, host: host, port: port)
    }

    /// Whether `host` is `localhost` or a literal loopback address (127.0.0.0/8 written as four
    /// decimal numbers, or ::1). A name that merely starts with `127.` is a name, resolved through
    /// DNS to anywhere, and is not loopback.
    public static func isLoopback(_ host: String) -> Bool {
        if host.lowercased() == "localhost" { return true }
        var v4 = in_addr()
        if inet_pton(AF_INET, host, &v4) == 1 {
            return UInt32(bigEndian: v4.s_addr) >> 24 == 127
        }
        var v6 = in6_addr()
        if inet_pton(AF_INET6, host, &v6) == 1 {
            return withUnsafeBytes(of: &v6) { bytes in bytes.prefix(15).allSatisfy { $0 == 0 } && bytes[15] == 1 }
        }
        return false
    }

    /// Amazon Location's tracking endpoint for `region`.
    public static func tracking(region: String) -> ServiceEndpoint {
        ServiceEndpoint(host: "tracking.geo.\(region).amazonaws.com")
    }

    /// Amazon Location's control-plane endpoint for `region` (DescribeTracker and the like).
    public static func trackingControl(region: String) -> ServiceEndpoint {
        ServiceEndpoint(host: "cp.tracking.geo.\(region).amazonaws.com")
    }

    /// Amazon Cognito Identity's endpoint for `region`.
    public static func cognitoIdentity(region: String) -> ServiceEndpoint {
        ServiceEndpoint(host: "cognito-identity.\(region).amazonaws.com")
    }

    public var description: String {
        let h = host.contains(":") ? "[\(host)]" : host
        return "\(scheme)://\(h)" + (port.map { ":\($0)" } ?? "")
    }

    /// A request to this endpoint.
    func request(method: String, path: String, query: String = "", headers: [(name: String, value: String)] = [], body: [UInt8] = []) -> HTTPRequest {
        var request = HTTPRequest(method: method, scheme: scheme, host: host, port: port, path: path, query: query, headers: [], body: body)
        request.headers = [("Host", request.hostHeader)] + headers
        return request
    }
}
