import GPSDReader
import Testing

@Suite struct GPSDEndpointTests {
    @Test func parsesHostAndPort() {
        #expect(GPSDEndpoint("127.0.0.1:2947") == GPSDEndpoint(host: "127.0.0.1", port: 2947))
        #expect(GPSDEndpoint("gps.local") == GPSDEndpoint(host: "gps.local", port: 2947))
        #expect(GPSDEndpoint(":3000") == GPSDEndpoint(host: "127.0.0.1", port: 3000))
        #expect(GPSDEndpoint("[::1]:2948") == GPSDEndpoint(host: "::1", port: 2948))
        #expect(GPSDEndpoint("[::1]:2948")?.description == "[::1]:2948")
    }

    @Test func rejectsNonsense() {
        for text in ["", "host:0", "host:70000", "host:abc", "[::1", "[::1]x", "a b:1"] {
            #expect(GPSDEndpoint(text) == nil, "\(text)")
        }
    }
}
