/// HTTP/1.1 responses from bytes, without a socket: fed what arrives, in pieces of any size, it
/// says when a whole response is in (and whether the connection may carry another request).
/// Pure, so every framing — Content-Length, chunked with extensions and trailers, a body that
/// ends with the connection, interim 1xx answers, keep-alive and `Connection: close` — is tested
/// on byte arrays (in async-http-client's manner: the state machine apart from the I/O).
struct HTTPResponseParser {
    /// Why the bytes are not an HTTP response.
    enum Failure: Error, Equatable, CustomStringConvertible {
        case notHTTP(String)
        case headTooLarge
        case badChunk(String)
        /// The connection ended before the response did.
        case truncated(String)

        var description: String {
            switch self {
            case let .notHTTP(line): return "not an HTTP answer: \(line)"
            case .headTooLarge: return "response headers over 64 KiB"
            case let .badChunk(what): return "a bad chunk: \(what)"
            case let .truncated(where_): return "the connection closed \(where_)"
            }
        }
    }

    /// A whole response, whether the connection may be reused, and what came after it.
    struct Complete: Equatable {
        var response: HTTPResponse
        var keepAlive: Bool
        var leftover: [UInt8]
    }

    private enum State {
        case head
        case fixed(remaining: Int)
        case chunkSize
        case chunkData(remaining: Int)
        case chunkEnd
        case trailers
        case untilClose
        case done
    }

    static let maxHead = 65_536
    static let maxChunkLine = 4096

    /// The request's method: a HEAD answer has no body, nor does a 2xx answer to CONNECT.
    let method: String
    private var state = State.head
    private var pending: [UInt8] = []
    private var status = 0
    private var headers: [(name: String, value: String)] = []
    private var body: [UInt8] = []
    private var keepAlive = true

    init(method: String) { self.method = method }

    /// Takes the next bytes; returns the response once it is complete.
    mutating func feed(_ bytes: some Collection<UInt8>) throws(Failure) -> Complete? {
        pending.append(contentsOf: bytes)
        return try advance()
    }

    /// The connection ended: a body that runs to the end is complete; anything else was cut off.
    mutating func finish() throws(Failure) -> Complete {
        switch state {
        case .untilClose:
            state = .done
            return Complete(response: HTTPResponse(status: status, headers: headers, body: body), keepAlive: false, leftover: [])
        case .head:
            throw .truncated(status == 0 && pending.isEmpty ? "before an answer" : "mid-answer")
        default:
            throw .truncated("mid-body")
        }
    }

    private mutating func advance() throws(Failure) -> Complete? {
        while true {
            switch state {
            case .head:
                guard let end = Self.find([13, 10, 13, 10], in: pending) else {
                    if pending.count > Self.maxHead { throw .headTooLarge }
                    return nil
                }
                let lines = String(decoding: pending[..<end], as: UTF8.self).split(separator: "\r\n", omittingEmptySubsequences: false)
                pending.removeFirst(end + 4)
                try startBody(lines.map(String.init))
            case let .fixed(remaining):
                let left = takeBody(remaining)
                guard left == 0 else {
                    state = .fixed(remaining: left)
                    return nil
                }
                state = .done
            case .chunkSize:
                guard let line = try takeLine() else { return nil }
                let digits = line.split(separator: ";", maxSplits: 1).first.map { $0.filter { !$0.isWhitespace } } ?? ""
                guard let size = Int(digits, radix: 16), size >= 0 else { throw .badChunk("size '\(line.prefix(20))'") }
                state = size == 0 ? .trailers : .chunkData(remaining: size)
            case let .chunkData(remaining):
                let left = takeBody(remaining)
                guard left == 0 else {
                    state = .chunkData(remaining: left)
                    return nil
                }
                state = .chunkEnd
            case .chunkEnd:
                guard let line = try takeLine() else { return nil }
                guard line.isEmpty else { throw .badChunk("data longer than its size") }
                state = .chunkSize
            case .trailers:
                guard let line = try takeLine() else { return nil }
                if line.isEmpty { state = .done }
            case .untilClose:
                body.append(contentsOf: pending)
                pending.removeAll()
                return nil
            case .done:
                return Complete(response: HTTPResponse(status: status, headers: headers, body: body), keepAlive: keepAlive, leftover: pending)
            }
        }
    }

    /// The status line and headers are in: how the body is framed.
    private mutating func startBody(_ lines: [String]) throws(Failure) {
        let statusLine = lines.first ?? ""
        let parts = statusLine.split(separator: " ", maxSplits: 2)
        guard parts.count >= 2, parts[0].hasPrefix("HTTP/1."), let code = Int(parts[1]), (100...999).contains(code) else {
            throw .notHTTP(String(statusLine.prefix(60)))
        }
        headers = lines.dropFirst().compactMap { line in
            guard let colon = line.firstIndex(of: ":") else { return nil }
            return (String(line[..<colon]), String(String(line[line.index(after: colon)...]).trimmingSpaces))
        }
        status = code
        // 100 Continue and the like: the real answer follows.
        if (100..<200).contains(code) {
            headers = []
            state = .head
            return
        }
        let response = HTTPResponse(status: code, headers: headers)
        let connection = response.header("Connection")?.lowercased()
        keepAlive = parts[0] == "HTTP/1.1" ? connection != "close" : connection == "keep-alive"
        if method == "HEAD" || code == 204 || code == 304 || (method == "CONNECT" && (200..<300).contains(code)) {
            state = .done
        } else if response.header("Transfer-Encoding")?.lowercased().contains("chunked") == true {
            state = .chunkSize
        } else if let text = response.header("Content-Length") {
            guard let length = Int(text), length >= 0 else { throw .notHTTP("Content-Length '\(text.prefix(20))'") }
            state = .fixed(remaining: length)
        } else {
            keepAlive = false
            state = .untilClose
        }
    }

    /// Moves up to `remaining` bytes of what arrived into the body; returns how many are still to come.
    private mutating func takeBody(_ remaining: Int) -> Int {
        let take = min(remaining, pending.count)
        body.append(contentsOf: pending[..<take])
        pending.removeFirst(take)
        return remaining - take
    }

    /// One CRLF-ended line, when it is in.
    private mutating func takeLine() throws(Failure) -> String? {
        guard let end = Self.find([13, 10], in: pending) else {
            if pending.count > Self.maxChunkLine { throw .badChunk("a line over 4 KiB") }
            return nil
        }
        let line = String(decoding: pending[..<end], as: UTF8.self)
        pending.removeFirst(end + 2)
        return line
    }

    private static func find(_ needle: [UInt8], in haystack: [UInt8]) -> Int? {
        guard haystack.count >= needle.count else { return nil }
        var index = 0
        while index + needle.count <= haystack.count {
            if haystack[index] == needle[0], Array(haystack[index..<(index + needle.count)]) == needle { return index }
            index += 1
        }
        return nil
    }
}
