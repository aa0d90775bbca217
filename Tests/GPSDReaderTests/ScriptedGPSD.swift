import Foundation
import Glibc

/// A stand-in gpsd on a loopback port that plays scripted sessions, for input real gpsd never
/// sends on purpose: malformed lines, absurd values, sudden closes and silence.
final class ScriptedGPSD: @unchecked Sendable {
    struct Session {
        /// Written 2 ms apart; `"sleep:MS"` pauses instead.
        var lines: [String]
        /// Close the connection after the lines (a gpsd restart), or keep it open and silent.
        var closeAfter: Bool
    }

    let port: UInt16
    private let listener: Int32
    private let listening: Bool
    private let lock = NSLock()
    private var accepted = 0
    private var openConnections: [Int32] = []
    private var sentAt: [String: ContinuousClock.Instant] = [:]
    private var accepts: [ContinuousClock.Instant] = []
    private var stopped = false

    /// Makes a peer that holds its port without listening: connections are refused, and no other
    /// test can be given the port while this one runs.
    convenience init(refusingConnections: ()) {
        self.init(sessions: [], listening: false)
    }

    init(sessions: [Session], listening: Bool = true) {
        let listener = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        self.listener = listener
        var yes: Int32 = 1
        setsockopt(listener, SOL_SOCKET, SO_REUSEADDR, &yes, socklen_t(MemoryLayout<Int32>.size))
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = 0
        _ = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(listener, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        _ = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(listener, $0, &length) }
        }
        self.port = UInt16(bigEndian: address.sin_port)
        self.listening = listening
        guard listening else { return }
        listen(listener, 8)
        let thread = Thread { [self] in serve(sessions) }
        thread.start()
    }

    /// Connections accepted so far.
    var connections: Int { lock.withLock { accepted } }

    /// When each connection was accepted.
    var acceptedAt: [ContinuousClock.Instant] { lock.withLock { accepts } }

    /// When `line` was last written.
    func sentAt(_ line: String) -> ContinuousClock.Instant? { lock.withLock { sentAt[line] } }

    /// Ends the sessions and the listener. Only shuts them down: the serving thread may be writing
    /// to a connection at this moment, so it alone closes the descriptors, when it sees them end.
    /// Closed here, a number could be handed to another test's socket or file before that thread's
    /// next write, drain or close landed on it.
    func stop() {
        lock.withLock {
            stopped = true
            for fd in openConnections { shutdown(fd, Int32(SHUT_RDWR)) }
        }
        shutdown(listener, Int32(SHUT_RDWR))
        if !listening { close(listener) }
    }

    private func drain(_ fd: Int32) {
        var buffer = [UInt8](repeating: 0, count: 4096)
        while recv(fd, &buffer, buffer.count, Int32(MSG_DONTWAIT)) > 0 {}
    }

    private func serve(_ sessions: [Session]) {
        var index = 0
        defer {
            lock.withLock {
                for fd in openConnections { close(fd) }
                openConnections = []
            }
            close(listener)
        }
        while true {
            let fd = accept(listener, nil, nil)
            if fd < 0 { return }
            if lock.withLock({ stopped }) {
                close(fd)
                return
            }
            let session = sessions[min(index, sessions.count - 1)]
            index += 1
            lock.withLock {
                accepted += 1
                accepts.append(ContinuousClock.now)
                openConnections.append(fd)
            }
            let banner = [
                #"{"class":"VERSION","release":"3.22","rev":"3.22","proto_major":3,"proto_minor":14}"#,
                #"{"class":"DEVICES","devices":[]}"#,
                #"{"class":"WATCH","enable":true,"json":true}"#,
            ]
            for line in banner + session.lines {
                if line.hasPrefix("sleep:"), let milliseconds = UInt32(line.dropFirst(6)) {
                    usleep(milliseconds * 1000)
                    continue
                }
                let text = line + "\r\n"
                _ = text.withCString { send(fd, $0, strlen($0), Int32(MSG_NOSIGNAL)) }
                lock.withLock { sentAt[line] = ContinuousClock.now }
                usleep(2000)
            }
            if session.closeAfter {
                // Like a stopping gpsd: read what the client sent (its ?WATCH), then an orderly close,
                // so the client sees every line before the end of the stream.
                drain(fd)
                shutdown(fd, Int32(SHUT_WR))
                usleep(50_000)
                drain(fd)
                lock.withLock {
                    openConnections.removeAll { $0 == fd }
                    close(fd)
                }
            }
            if lock.withLock({ stopped }) { return }
        }
    }
}
