#if canImport(Glibc)
import Glibc
#endif

/// Replaces a small file so that readers see the old or the new content, never a half-written
/// one, and a crash leaves one of the two: a new temporary file beside it, written and fsynced,
/// renamed over it, then the directory fsynced.
///
/// The temporary file is created with `mkstemp` (a fresh name, `O_CREAT|O_EXCL`): a daemon running as
/// root never follows a link someone planted at a predictable `<file>.tmp` to overwrite its target.
public enum AtomicFile {
    /// Writes `text` to `path` with `mode`; returns nil on success, else what went wrong.
    public static func write(_ text: String, to path: String, mode: mode_t = 0o644) -> String? {
        let directory = path.lastIndex(of: "/").map { String(path[..<$0]) } ?? "."
        var template = Array((path + ".tmp-XXXXXX").utf8CString)
        let fd = template.withUnsafeMutableBufferPointer { mkstemp($0.baseAddress!) }
        guard fd >= 0 else { return describe(errno, doing: "create a temporary file in \(directory.isEmpty ? "/" : directory)") }
        _ = fcntl(fd, F_SETFD, FD_CLOEXEC)
        let temporary = template.withUnsafeBufferPointer { String(cString: $0.baseAddress!) }
        var problem: String?
        if fchmod(fd, mode) != 0 {
            problem = describe(errno, doing: "set the mode of \(temporary)")
        } else if !FileOutput.write(text, to: fd) {
            problem = describe(errno, doing: "write \(temporary)")
        } else if fsync(fd) != 0 {
            problem = describe(errno, doing: "flush \(temporary)")
        }
        close(fd)
        if problem == nil, rename(temporary, path) != 0 { problem = describe(errno, doing: "rename \(temporary) to \(path)") }
        if let problem {
            unlink(temporary)
            return problem
        }
        let directoryFD = open(directory.isEmpty ? "/" : directory, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        if directoryFD >= 0 {
            fsync(directoryFD)
            close(directoryFD)
        }
        return nil
    }

    private static func describe(_ code: Int32, doing what: String) -> String {
        "cannot \(what): \(String(cString: strerror(code)))"
    }
}
