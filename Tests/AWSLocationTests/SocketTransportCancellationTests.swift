import Glibc
import Testing
@testable import AWSLocation

@Suite struct SocketTransportCancellationTests {
    /// A loopback port that takes connections (the kernel's backlog) and never answers.
    private func silentListener() throws -> (socket: Int32, port: Int) {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, length) == 0 && listen(fd, 8) == 0 && getsockname(fd, $0, &length) == 0 }
        }
        try #require(bound)
        return (fd, Int(UInt16(bigEndian: address.sin_port)))
    }

    @Test func aCancelledCallerIsAnsweredAtOnceWhileTheExchangeRunsToItsTimeout() async throws {
        let (listener, port) = try silentListener()
        defer { close(listener) }
        let transport = SocketTransport(configuration: .init(connectTimeout: 5, totalTimeout: 30), environment: [:])
        let request = HTTPRequest(method: "GET", scheme: "http", host: "127.0.0.1", port: port, path: "/")
        let waiting = Task { () throws(HTTPError) -> HTTPResponse in try await transport.send(request) }
        try await Task.sleep(for: .milliseconds(200))
        let started = ContinuousClock.now
        waiting.cancel()
        let result = await waiting.result
        #expect(throws: HTTPError.cancelled(url: request.url)) { try result.get() }
        #expect(ContinuousClock.now - started < .seconds(5), "answered on cancellation, not at the 30 s timeout")

        // Cancelled before it starts: no request goes.
        let early = Task { () throws(HTTPError) -> HTTPResponse in
            withUnsafeCurrentTask { $0?.cancel() }
            return try await transport.send(request)
        }
        let earlyResult = await early.result
        #expect(throws: HTTPError.cancelled(url: request.url)) { try earlyResult.get() }
    }
}
