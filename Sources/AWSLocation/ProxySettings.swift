/// `HTTPS_PROXY`/`https_proxy` and `NO_PROXY`/`no_proxy`, as curl and most tools read them.
/// Only https goes through a proxy (as a CONNECT tunnel; TLS is still end to end and verified);
/// plain http is for loopback test endpoints, and `localhost`, `127.0.0.1` and `::1` are never
/// proxied.
struct ProxySettings: Sendable, Equatable {
    struct Proxy: Sendable, Equatable {
        var host: String
        var port: Int
        /// `Basic ...` when the proxy URL carries `user:password@`.
        var authorization: String?
    }

    var proxy: Proxy?
    /// Host names (or suffixes, `.example.com` and `example.com` alike) that go direct; `*` for all.
    var bypass: [String] = []

    init(environment: [String: String]) {
        let value = environment["https_proxy"] ?? environment["HTTPS_PROXY"]
        proxy = value.flatMap(Self.parse)
        bypass = (environment["no_proxy"] ?? environment["NO_PROXY"] ?? "")
            .split(separator: ",").map { $0.filter { !$0.isWhitespace }.lowercased() }.filter { !$0.isEmpty }
    }

    /// What is wrong with the proxy setting in `environment`, if one is set and cannot be used:
    /// the variable's name and the reason. The value is not repeated (it may carry a password).
    static func problem(environment: [String: String]) -> (variable: String, reason: String)? {
        let variable = environment["https_proxy"] != nil ? "https_proxy" : "HTTPS_PROXY"
        guard let value = environment[variable], !value.allSatisfy(\.isWhitespace) else { return nil }
        guard parse(value) == nil else { return nil }
        return (variable, "is not a proxy URL gpstrackd can use; write it as http://[user:password@]host[:port] "
            + "(an http:// proxy, which carries TLS end to end through CONNECT)")
    }

    /// The proxy for a connection to `host` over `scheme`, or nil to go direct.
    func proxy(scheme: String, host: String) -> Proxy? {
        guard scheme == "https", let proxy else { return nil }
        let name = host.lowercased()
        if name == "localhost" || name == "127.0.0.1" || name == "::1" { return nil }
        for entry in bypass {
            if entry == "*" { return nil }
            let suffix = entry.hasPrefix(".") ? String(entry.dropFirst()) : entry
            if name == suffix || name.hasSuffix("." + suffix) { return nil }
        }
        return proxy
    }

    /// `http://[user:password@]host[:port][/]`; the port defaults to 1080 as curl's does.
    static func parse(_ text: String) -> Proxy? {
        var rest = Substring(text.filter { !$0.isWhitespace })
        guard !rest.isEmpty else { return nil }
        if let scheme = rest.firstRange(of: "://") {
            guard rest[..<scheme.lowerBound].lowercased() == "http" else { return nil }
            rest = rest[scheme.upperBound...]
        }
        if let slash = rest.firstIndex(of: "/") { rest = rest[..<slash] }
        var authorization: String?
        if let at = rest.lastIndex(of: "@") {
            authorization = "Basic " + Base64.encode(Array(SigV4Signer.percentDecode(String(rest[..<at])).utf8))
            rest = rest[rest.index(after: at)...]
        }
        var host = rest
        var port = 1080
        if rest.hasPrefix("["), let close = rest.firstIndex(of: "]") {
            host = rest[rest.index(after: rest.startIndex)..<close]
            let after = rest[rest.index(after: close)...]
            if after.hasPrefix(":") { guard let p = Int(after.dropFirst()) else { return nil }; port = p }
        } else if let colon = rest.lastIndex(of: ":") {
            host = rest[..<colon]
            guard let p = Int(rest[rest.index(after: colon)...]) else { return nil }
            port = p
        }
        guard !host.isEmpty, (1...65535).contains(port) else { return nil }
        return Proxy(host: String(host), port: port, authorization: authorization)
    }
}
