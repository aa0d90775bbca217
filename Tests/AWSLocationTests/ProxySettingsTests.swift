@testable import AWSLocation
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
