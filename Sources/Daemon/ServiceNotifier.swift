import Glibc

/// sd_notify(3) without libsystemd: datagrams to `$NOTIFY_SOCKET` (a path, or `@name` for the
/// abstract namespace). Does nothing when the variable is unset (not run by systemd).
public final class ServiceNotifier: Sendable {
    private let socketPath: String?
    /// Half of `$WATCHDOG_USEC`: how often to send `WATCHDOG=1`, when systemd asked for it.
    public let watchdogInterval: Duration?

    public init(environment: [String: String]) {
        socketPath = environment["NOTIFY_SOCKET"].flatMap { $0.isEmpty ? nil : $0 }
        if let usec = environment["WATCHDOG_USEC"].flatMap(Int64.init), usec > 0 {
            watchdogInterval = .microseconds(usec / 2)
        } else {
            watchdogInterval = nil
        }
    }

    @discardableResult
    public func notify(_ message: String) -> Bool {
        guard let socketPath else { return false }
        let fd = socket(AF_UNIX, Int32(SOCK_DGRAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard fd >= 0 else { return false }
        defer { close(fd) }
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        var bytes = Array(socketPath.utf8)
        if bytes.first == UInt8(ascii: "@") { bytes[0] = 0 }
        guard bytes.count < MemoryLayout.size(ofValue: address.sun_path) else { return false }
        withUnsafeMutableBytes(of: &address.sun_path) { raw in
            for (index, byte) in bytes.enumerated() { raw[index] = byte }
        }
        let length = socklen_t(MemoryLayout<sa_family_t>.size + bytes.count)
        let sent = message.withCString { text in
            withUnsafePointer(to: &address) {
                // Never block: a notification systemd is too busy to take is dropped, not waited for.
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                    sendto(fd, text, strlen(text), Int32(MSG_DONTWAIT | MSG_NOSIGNAL), $0, length)
                }
            }
        }
        return sent >= 0
    }
}
