import Glibc
import Spool

/// One daemon per state directory: an exclusive `flock` on `<state-dir>/gpstrackd.lock`, held for
/// the daemon's life and released by the kernel when it exits, however it exits.
///
/// Two daemons on one spool would upload every position twice and overwrite each other's status.
/// The lock file holds the owner's pid, so the second daemon can say which process to look at.
final class StateDirectoryLock {
    /// Why the lock could not be taken.
    struct Failure: Error, CustomStringConvertible {
        var directory: String
        var holder: Int32?
        var reason: String?

        var description: String {
            if let reason { return "cannot lock the state directory \(directory): \(reason)" }
            let who = holder.map { "(pid \($0)) " } ?? ""
            return "another gpstrackd \(who)is already running on the state directory \(directory); "
                + "stop it, or give this one its own state-dir"
        }
    }

    let path: String
    private let fd: Int32

    init(directory: String) throws {
        path = directory + "/gpstrackd.lock"
        do throws(SpoolError) {
            try Spool.makeDirectory(directory)
        } catch {
            throw Failure(directory: directory, holder: nil, reason: error.description)
        }
        fd = open(path, O_RDWR | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0o644)
        guard fd >= 0 else { throw Failure(directory: directory, holder: nil, reason: String(cString: strerror(errno))) }
        if flock(fd, LOCK_EX | LOCK_NB) != 0 {
            let code = errno
            let holder = Self.readPID(fd)
            close(fd)
            guard code == EWOULDBLOCK else { throw Failure(directory: directory, holder: nil, reason: String(cString: strerror(code))) }
            throw Failure(directory: directory, holder: holder, reason: nil)
        }
        let text = "\(getpid())\n"
        _ = ftruncate(fd, 0)
        _ = text.withCString { pwrite(fd, $0, strlen($0), 0) }
    }

    deinit { close(fd) }

    private static func readPID(_ fd: Int32) -> Int32? {
        var buffer = [UInt8](repeating: 0, count: 32)
        let count = pread(fd, &buffer, buffer.count, 0)
        guard count > 0 else { return nil }
        return Int32(String(decoding: buffer[0..<count], as: UTF8.self).filter(\.isNumber))
    }
}
