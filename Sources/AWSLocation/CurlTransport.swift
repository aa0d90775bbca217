import CCurl
import Dispatch
import Synchronization

/// HTTP over libcurl: connection reuse (a small pool of easy handles), connect and total
/// timeouts, TLS always verified, `HTTPS_PROXY`/`NO_PROXY` honoured (libcurl reads them).
///
/// Chosen over URLSession: FoundationNetworking alone costs ~20 MB of resident memory, and the
/// daemon has a budget for small boxes. `curl_easy_perform` blocks, so requests run on a
/// concurrent Dispatch queue, never on Swift's cooperative pool.
public final class CurlTransport: HTTPTransport {
    public struct Configuration: Sendable {
        public var connectTimeout: Double = 10
        public var totalTimeout: Double = 30
        public var userAgent = "gpstrackd"
        public init(connectTimeout: Double = 10, totalTimeout: Double = 30) {
            self.connectTimeout = connectTimeout
            self.totalTimeout = totalTimeout
        }
    }

    private static let globalInit: Bool = curl_global_init(Int(CURL_GLOBAL_DEFAULT)) == CURLE_OK

    public let configuration: Configuration
    private let queue = DispatchQueue(label: "gpstrackd.http", attributes: .concurrent)
    private let idle = Mutex<[HandleBox]>([])

    public init(configuration: Configuration = Configuration()) {
        _ = Self.globalInit
        self.configuration = configuration
    }

    deinit {
        for box in idle.withLock({ $0 }) { curl_easy_cleanup(box.handle) }
    }

    public func send(_ request: HTTPRequest) async throws(HTTPError) -> HTTPResponse {
        let result: Result<HTTPResponse, HTTPError> = await withCheckedContinuation { continuation in
            queue.async { [self] in
                continuation.resume(returning: perform(request))
            }
        }
        return try result.get()
    }

    private func perform(_ request: HTTPRequest) -> Result<HTTPResponse, HTTPError> {
        let box = idle.withLock { $0.popLast() } ?? HandleBox(curl_easy_init())
        let handle = box.handle
        defer {
            curl_easy_reset(handle)
            idle.withLock { pool in
                if pool.count < 8 { pool.append(box) } else { curl_easy_cleanup(handle) }
            }
        }
        let sink = ResponseSink()
        var headerList: UnsafeMutablePointer<curl_slist>?
        defer { curl_slist_free_all(headerList) }
        for (name, value) in request.headers {
            headerList = curl_slist_append(headerList, "\(name): \(value)")
        }
        // libcurl adds its own Accept and Expect headers unless told not to; they are not signed.
        headerList = curl_slist_append(headerList, "Accept:")
        headerList = curl_slist_append(headerList, "Expect:")
        gpstrackd_curl_set_string(handle, CURLOPT_URL, request.url)
        gpstrackd_curl_set_string(handle, CURLOPT_CUSTOMREQUEST, request.method)
        gpstrackd_curl_set_pointer(handle, CURLOPT_HTTPHEADER, headerList)
        gpstrackd_curl_set_string(handle, CURLOPT_USERAGENT, configuration.userAgent)
        gpstrackd_curl_set_long(handle, CURLOPT_NOSIGNAL, 1)
        gpstrackd_curl_set_long(handle, CURLOPT_SSL_VERIFYPEER, 1)
        gpstrackd_curl_set_long(handle, CURLOPT_SSL_VERIFYHOST, 2)
        gpstrackd_curl_set_long(handle, CURLOPT_CONNECTTIMEOUT_MS, Int(configuration.connectTimeout * 1000))
        gpstrackd_curl_set_long(handle, CURLOPT_TIMEOUT_MS, Int(configuration.totalTimeout * 1000))
        gpstrackd_curl_set_string(handle, CURLOPT_ACCEPT_ENCODING, "")
        let context = Unmanaged.passUnretained(sink).toOpaque()
        gpstrackd_curl_set_callbacks(handle, { data, size, count, context in
            let sink = Unmanaged<ResponseSink>.fromOpaque(context!).takeUnretainedValue()
            sink.body.append(contentsOf: UnsafeRawBufferPointer(start: data, count: size * count))
            return size * count
        }, { data, size, count, context in
            let sink = Unmanaged<ResponseSink>.fromOpaque(context!).takeUnretainedValue()
            sink.headerLine(UnsafeRawBufferPointer(start: data, count: size * count))
            return size * count
        }, context)
        let code: CURLcode = request.body.withUnsafeBytes { body in
            if request.method != "GET" || !request.body.isEmpty {
                gpstrackd_curl_set_body(handle, body.baseAddress ?? UnsafeRawPointer(bitPattern: 1), body.count)
            }
            return curl_easy_perform(handle)
        }
        withExtendedLifetime(sink) {}
        guard code == CURLE_OK else {
            let reason = String(cString: curl_easy_strerror(code))
            switch code {
            case CURLE_OPERATION_TIMEDOUT:
                return .failure(.timeout(url: request.url, seconds: configuration.totalTimeout))
            case CURLE_SSL_CONNECT_ERROR, CURLE_PEER_FAILED_VERIFICATION, CURLE_SSL_CERTPROBLEM, CURLE_SSL_CACERT_BADFILE:
                return .failure(.tls(url: request.url, reason: reason))
            default:
                return .failure(.connection(url: request.url, reason: reason))
            }
        }
        return .success(HTTPResponse(status: gpstrackd_curl_response_code(handle), headers: sink.headers, body: sink.body))
    }
}

/// An easy handle, owned by the pool or by one request at a time.
private final class HandleBox: @unchecked Sendable {
    let handle: UnsafeMutableRawPointer
    init(_ handle: UnsafeMutableRawPointer?) { self.handle = handle! }
}

/// Collects one response's headers and body from libcurl's callbacks (on the performing thread).
private final class ResponseSink {
    var body: [UInt8] = []
    var headers: [(name: String, value: String)] = []

    func headerLine(_ bytes: UnsafeRawBufferPointer) {
        let line = String(decoding: bytes, as: UTF8.self)
        if line.hasPrefix("HTTP/") {
            headers = []  // a new response (after 100 Continue or a redirect)
            return
        }
        guard let colon = line.firstIndex(of: ":") else { return }
        let name = String(line[..<colon])
        let value = String(line[line.index(after: colon)...]).trimmingSpaces
        headers.append((name, String(value)))
    }
}
