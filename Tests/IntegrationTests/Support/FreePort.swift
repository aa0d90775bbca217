import Foundation
import Glibc
import Synchronization

/// Loopback TCP ports for test servers: never gpsd's 2947.
enum FreePort {
    /// Ports already handed out in this test process. Tests run side by side: two drawing the
    /// same free number before either server bound it once sent one test's client to the other
    /// test's gpsd (a drive of 836 fixes where a 5-minute one was played).
    private static let handedOut = Mutex<Set<UInt16>>([])

    /// A port free right now and not handed out before in this process, below the kernel's
    /// ephemeral range so that no outgoing connection (of this test or another) is handed the
    /// same number while the test runs.
    static func next() -> UInt16 {
        for _ in 0..<50 {
            let candidate = UInt16.random(in: 20_000..<32_000)
            guard candidate != 2947, handedOut.withLock({ $0.insert(candidate).inserted }) else { continue }
            if canBind(candidate) { return candidate }
        }
        return 29_999
    }

    private static func canBind(_ port: UInt16) -> Bool {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        defer { close(fd) }
        return withLoopback(port: port) { bind(fd, $0, $1) } == 0
    }

    /// Whether something accepts TCP connections on 127.0.0.1:`port`.
    static func isListening(_ port: UInt16) -> Bool {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        defer { close(fd) }
        return withLoopback(port: port) { connect(fd, $0, $1) } == 0
    }

    /// Calls `body` with the socket address 127.0.0.1:`port`.
    private static func withLoopback(port: UInt16, _ body: (UnsafePointer<sockaddr>, socklen_t) -> Int32) -> Int32 {
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = port.bigEndian
        return withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { body($0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
    }
}
