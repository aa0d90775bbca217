@testable import AWSLocation
import Glibc
import Testing

@Suite struct ProxySettingsTests {
    @Test func readsTheProxyURLAsCurlDoes() {
        #expect(ProxySettings.parse("http://proxy.fleet:3128") == .init(host: "proxy.fleet", port: 3128))
        #expect(ProxySettings.parse("proxy.fleet") == .init(host: "proxy.fleet", port: 1080), "no scheme, curl's default port")
        #expect(ProxySettings.parse("http://[fd00::1]:8080/") == .init(host: "fd00::1", port: 8080))
        #expect(ProxySettings.parse("http://ops%3Ateam:p%40ss@10.0.0.1:3128")
            == .init(host: "10.0.0.1", port: 3128, authorization: "Basic " + Base64.encode(Array("ops:team:p@ss".utf8))))
        #expect(ProxySettings.parse("socks5://10.0.0.1:1080") == nil, "only HTTP proxies")
        #expect(ProxySettings.parse("http://proxy:99999") == nil)
        #expect(ProxySettings.parse("") == nil)
    }

    @Test func noProxyAndLoopbackGoDirect() {
        let settings = ProxySettings(environment: ["HTTPS_PROXY": "http://proxy:3128", "NO_PROXY": " .internal, amazonaws.com ,10.1.2.3"])
        #expect(settings.proxy(scheme: "https", host: "tracking.geo.eu-west-1.amazonaws.com") == nil)
        #expect(settings.proxy(scheme: "https", host: "AMAZONAWS.COM") == nil)
        #expect(settings.proxy(scheme: "https", host: "api.internal") == nil)
        #expect(settings.proxy(scheme: "https", host: "10.1.2.3") == nil)
        #expect(settings.proxy(scheme: "https", host: "notamazonaws.com")?.host == "proxy", "a suffix match is by whole labels")
        #expect(settings.proxy(scheme: "https", host: "localhost") == nil)
        #expect(settings.proxy(scheme: "https", host: "127.0.0.1") == nil)
        #expect(settings.proxy(scheme: "http", host: "example.org") == nil, "only https is proxied")
        #expect(ProxySettings(environment: ["https_proxy": "http://p:1", "NO_PROXY": "*"]).proxy(scheme: "https", host: "x.org") == nil)
        #expect(ProxySettings(environment: ["https_proxy": "http://p:1", "HTTPS_PROXY": "http://q:2"]).proxy?.host == "p",
                "the lower-case variable first, as curl reads it")
        #expect(ProxySettings(environment: [:]).proxy(scheme: "https", host: "x.org") == nil)
    }

    @Test func base64MatchesRFC4648() {
        for (text, expected) in [("", ""), ("f", "Zg=="), ("fo", "Zm8="), ("foo", "Zm9v"), ("foob", "Zm9vYg=="),
                                 ("fooba", "Zm9vYmE="), ("foobar", "Zm9vYmFy")] {
            #expect(Base64.encode(Array(text.utf8)) == expected)
        }
    }
}

@Suite struct ProxyProblemTests {
    @Test func anUnusableProxySettingIsNamedWithoutItsValue() throws {
        let problem = try #require(SocketTransport.proxyProblem(environment: ["HTTPS_PROXY": "socks5://ops:s3cret@10.0.0.1:1080"]))
        #expect(problem.variable == "HTTPS_PROXY")
        #expect(problem.reason.contains("http://[user:password@]host[:port]"))
        #expect(!problem.reason.contains("s3cret"))
        #expect(SocketTransport.proxyProblem(environment: ["https_proxy": "http://proxy:99999"])?.variable == "https_proxy")
        #expect(SocketTransport.proxyProblem(environment: ["HTTPS_PROXY": "http://proxy.fleet:3128"]) == nil)
        #expect(SocketTransport.proxyProblem(environment: [:]) == nil)
    }

    @Test func aDeadProxyIsReportedAsTheProxy() async throws {
        // A port nothing listens on: bind, read the port, close.
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        _ = withUnsafePointer(to: &address) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) } }
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        _ = withUnsafeMutablePointer(to: &address) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) } }
        let port = UInt16(bigEndian: address.sin_port)
        close(fd)
        let transport = SocketTransport(environment: ["HTTPS_PROXY": "http://127.0.0.1:\(port)"])
        var request = HTTPRequest(method: "GET", scheme: "https", host: "tracking.geo.eu-west-1.amazonaws.com", port: nil,
                                  path: "/", headers: [], body: [])
        request.setHeader("Host", request.hostHeader)
        do {
            _ = try await transport.send(request)
            Issue.record("a dead proxy answered")
        } catch {
            let text = "\(error)"
            #expect(text.contains("proxy 127.0.0.1:\(port)") && text.contains("HTTPS_PROXY"), "\(text)")
        }
    }
}
