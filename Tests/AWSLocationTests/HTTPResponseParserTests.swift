@testable import AWSLocation
import Dispatch
import Glibc
import Testing

/// The response parser on byte arrays: every framing, fed whole and one byte at a time.
@Suite struct HTTPResponseParserTests {
    typealias Parser = HTTPResponseParser

    static func bytes(_ text: String) -> [UInt8] { Array(text.utf8) }

    /// Feeds `text` in pieces of `step` bytes; then the end of the stream when `close`.
    static func parse(_ text: String, method: String = "POST", step: Int = .max, close: Bool = false) throws(Parser.Failure) -> Parser.Complete? {
        var parser = Parser(method: method)
        let all = bytes(text)
        var index = 0
        while index < all.count {
            let end = min(all.count, index + max(1, min(step, all.count)))
            if let complete = try parser.feed(all[index..<end]) { return complete }
            index = end
        }
        return close ? try parser.finish() : nil
    }

    static let steps = [Int.max, 1, 2, 7]

    @Test(arguments: steps) func contentLengthKeepsTheConnection(step: Int) throws {
        let complete = try #require(try Self.parse("HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: 11\r\n\r\n{\"Errors\":[]}", step: step))
        #expect(complete.response.status == 200)
        #expect(complete.response.bodyText == "{\"Errors\":[")
        #expect(complete.response.header("content-type") == "application/json")
        #expect(complete.keepAlive)
        // What came after the body in the same piece is handed back, not swallowed.
        #expect(step == .max ? complete.leftover == Self.bytes("]}") : Self.bytes("]}").starts(with: complete.leftover))
    }

    @Test(arguments: steps) func chunkedWithExtensionsAndTrailers(step: Int) throws {
        let text = "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n4;name=value\r\nWiki\r\n5\r\npedia\r\nE\r\n in\r\n\r\nchunks.\r\n0\r\nExpires: never\r\n\r\n"
        let complete = try #require(try Self.parse(text, step: step))
        #expect(complete.response.bodyText == "Wikipedia in\r\n\r\nchunks.")
        #expect(complete.keepAlive && complete.leftover.isEmpty)
    }

    @Test(arguments: steps) func aBodyWithoutALengthRunsToTheEndAndTheConnectionCloses(step: Int) throws {
        #expect(try Self.parse("HTTP/1.1 200 OK\r\n\r\npartial", step: step) == nil, "not complete before the end")
        let complete = try #require(try Self.parse("HTTP/1.1 200 OK\r\n\r\nthe whole body", step: step, close: true))
        #expect(complete.response.bodyText == "the whole body")
        #expect(!complete.keepAlive)
    }

    @Test func interimAnswersAreSkipped() throws {
        let complete = try #require(try Self.parse("HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 201 Created\r\nContent-Length: 2\r\n\r\nok", step: 3))
        #expect(complete.response.status == 201 && complete.response.bodyText == "ok")
        #expect(complete.response.headers.count == 1, "the interim answer's headers are not kept")
    }

    @Test func whenTheConnectionMayBeReused() throws {
        #expect(try Self.parse("HTTP/1.1 200 OK\r\nConnection: close\r\nContent-Length: 0\r\n\r\n")?.keepAlive == false)
        #expect(try Self.parse("HTTP/1.0 200 OK\r\nContent-Length: 0\r\n\r\n")?.keepAlive == false)
        #expect(try Self.parse("HTTP/1.0 200 OK\r\nConnection: keep-alive\r\nContent-Length: 0\r\n\r\n")?.keepAlive == true)
    }

    @Test func answersWithoutABody() throws {
        #expect(try Self.parse("HTTP/1.1 204 No Content\r\n\r\n")?.response.body.isEmpty == true)
        #expect(try Self.parse("HTTP/1.1 304 Not Modified\r\nContent-Length: 10\r\n\r\n")?.response.body.isEmpty == true)
        #expect(try Self.parse("HTTP/1.1 200 OK\r\nContent-Length: 10\r\n\r\n", method: "HEAD")?.response.status == 200)
        #expect(try Self.parse("HTTP/1.1 200 Connection established\r\n\r\n", method: "CONNECT")?.response.status == 200)
    }

    @Test func garbageIsNamed() {
        #expect(throws: Parser.Failure.notHTTP("SSH-2.0-OpenSSH_9.2")) { try Self.parse("SSH-2.0-OpenSSH_9.2\r\n\r\n") }
        #expect(throws: Parser.Failure.notHTTP("HTTP/1.1 abc OK")) { try Self.parse("HTTP/1.1 abc OK\r\n\r\n") }
        #expect(throws: Parser.Failure.notHTTP("Content-Length '-5'")) { try Self.parse("HTTP/1.1 200 OK\r\nContent-Length: -5\r\n\r\n") }
        #expect(throws: Parser.Failure.badChunk("size 'zz'")) { try Self.parse("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n") }
        #expect(throws: Parser.Failure.badChunk("data longer than its size")) {
            try Self.parse("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n2\r\nabc\r\n0\r\n\r\n")
        }
        #expect(throws: Parser.Failure.headTooLarge) { try Self.parse("HTTP/1.1 200 OK\r\nX: " + String(repeating: "a", count: 70_000)) }
    }

    @Test func anAnswerCutOffIsTruncatedNotComplete() {
        #expect(throws: Parser.Failure.truncated("before an answer")) { try Self.parse("", close: true) }
        #expect(throws: Parser.Failure.truncated("mid-answer")) { try Self.parse("HTTP/1.1 200 OK\r\nContent-", close: true) }
        #expect(throws: Parser.Failure.truncated("mid-body")) { try Self.parse("HTTP/1.1 200 OK\r\nContent-Length: 10\r\n\r\nabc", close: true) }
        #expect(throws: Parser.Failure.truncated("mid-body")) { try Self.parse("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nab", close: true) }
    }
}

/// Name resolution under the connect deadline, and the choice of worker.
@Suite struct TransportSchedulingTests {
    @Test func aResolverThatDoesNotAnswerEndsAtTheDeadline() throws {
        // Stands in for a resolver that never answers: it waits for a gate that opens only at the end.
        let gate = DispatchSemaphore(value: 0)
        let resolver = NameResolver(lookup: { _, _ in
            gate.wait()
            return .success([])
        })
        let start = ContinuousClock.now
        #expect(throws: HTTPConnection.Failure.connection("cannot resolve tracking.geo.example: no answer from the name resolver in time")) {
            try resolver.resolve(host: "tracking.geo.example", port: 443, deadline: start + .milliseconds(200))
        }
        #expect(ContinuousClock.now - start < .seconds(5), "bounded by the deadline, not by the resolver")
        gate.signal()
    }

    @Test func theSystemResolverAnswersForLoopback() throws {
        let addresses = try NameResolver().resolve(host: "127.0.0.1", port: 443, deadline: .now + .seconds(5))
        #expect(addresses.first?.family == AF_INET)
        #expect(addresses.first?.bytes.count == MemoryLayout<sockaddr_in>.size)
    }

    @Test func aRequestGoesToAFreeWorkerNotTheNextInTurn() {
        #expect(SocketTransport.leastBusy([1, 1, 0, 1]) == 2)
        #expect(SocketTransport.leastBusy([0, 0, 0]) == 0)
        #expect(SocketTransport.leastBusy([3, 2, 2]) == 1, "the least busy when none is free")
    }
}
