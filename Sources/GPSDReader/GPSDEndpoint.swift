/// Where gpsd listens: a host and a TCP port, written `HOST:PORT` (`[::1]:2947` for IPv6).
public struct GPSDEndpoint: Sendable, Hashable, CustomStringConvertible {
    public var host: String
    public var port: UInt16

    /// gpsd's standard address.
    public static let standard = GPSDEndpoint(host: "127.0.0.1", port: 2947)

    public init(host: String, port: UInt16) {
        self.host = host
        self.port = port
    }

    /// Parses `HOST:PORT`, `HOST` (port 2947), `[V6ADDR]:PORT` or `:PORT` (host 127.0.0.1).
    /// Returns `nil` for an empty host or a port outside 1...65535.
    public init?(_ text: String) {
        var host = Substring(text)
        var port: UInt16 = 2947
        if host.hasPrefix("[") {
            guard let close = host.firstIndex(of: "]") else { return nil }
            let rest = host[host.index(after: close)...]
            host = host[host.index(after: host.startIndex)..<close]
            if !rest.isEmpty {
                guard rest.hasPrefix(":"), let p = UInt16(rest.dropFirst()), p > 0 else { return nil }
                port = p
            }
        } else if let colon = host.lastIndex(of: ":"), host.firstIndex(of: ":") == colon {
            guard let p = UInt16(host[host.index(after: colon)...]), p > 0 else { return nil }
            port = p
            host = host[..<colon]
            if host.isEmpty { host = "127.0.0.1" }
        }
        guard !host.isEmpty, !host.contains(where: { $0 == " " || $0 == "/" }) else { return nil }
        self.host = String(host)
        self.port = port
    }

    public var description: String {
        host.contains(":") ? "[\(host)]:\(port)" : "\(host):\(port)"
    }
}
