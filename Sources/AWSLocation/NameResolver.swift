import Dispatch
import Glibc
import Synchronization

/// getaddrinfo(3) within the connect deadline. getaddrinfo itself has no timeout (a resolver that
/// does not answer holds it for the resolver's own retries, 30 s and more), so it runs on a thread
/// of its own and the caller waits only until the deadline; a late answer is dropped.
struct NameResolver: Sendable {
    /// One address to try, copied out of getaddrinfo's list.
    struct Address: Sendable, Equatable {
        var family: Int32
        var socketType: Int32
        var proto: Int32
        /// The `sockaddr` bytes.
        var bytes: [UInt8]
    }

    /// Looks a name up, blocking (getaddrinfo in production; a test may stand in a slow one).
    var lookup: @Sendable (_ host: String, _ port: Int) -> Result<[Address], HTTPConnection.Failure> = NameResolver.systemLookup

    func resolve(host: String, port: Int, deadline: ContinuousClock.Instant) throws(HTTPConnection.Failure) -> [Address] {
        let answer = Mutex<Result<[Address], HTTPConnection.Failure>?>(nil)
        let done = DispatchSemaphore(value: 0)
        let lookup = self.lookup
        DispatchQueue.global(qos: .utility).async {
            let result = lookup(host, port)
            answer.withLock { $0 = result }
            done.signal()
        }
        let (seconds, attoseconds) = (deadline - .now).components
        let nanoseconds = max(0, seconds) * 1_000_000_000 + (seconds >= 0 ? attoseconds / 1_000_000_000 : 0)
        guard done.wait(timeout: .now() + .nanoseconds(Int(clamping: nanoseconds))) == .success, let result = answer.withLock({ $0 }) else {
            throw .connection("cannot resolve \(host): no answer from the name resolver in time")
        }
        return try result.get()
    }

    static func systemLookup(host: String, port: Int) -> Result<[Address], HTTPConnection.Failure> {
        var hints = addrinfo()
        hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
        hints.ai_family = AF_UNSPEC
        var list: UnsafeMutablePointer<addrinfo>?
        let status = getaddrinfo(host, String(port), &hints, &list)
        guard status == 0, list != nil else {
            return .failure(.connection("cannot resolve \(host): \(String(cString: gai_strerror(status)))"))
        }
        defer { freeaddrinfo(list) }
        var addresses: [Address] = []
        var entry = list
        while let address = entry {
            if let raw = address.pointee.ai_addr {
                addresses.append(Address(family: address.pointee.ai_family, socketType: address.pointee.ai_socktype, proto: address.pointee.ai_protocol,
                                         bytes: Array(UnsafeRawBufferPointer(start: raw, count: Int(address.pointee.ai_addrlen)))))
            }
            entry = address.pointee.ai_next
        }
        return .success(addresses)
    }
}
