import Glibc
import TrackingCore

/// Writes a file so that readers see the old or the new content, never a half-written one:
/// a temporary file in the same directory, then rename(2).
enum AtomicFile {
    static func write(_ text: String, to path: String) -> Bool {
        let temporary = path + ".tmp"
        let fd = open(temporary, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644)
        guard fd >= 0 else { return false }
        let written = FileOutput.write(text, to: fd)
        close(fd)
        guard written else {
            unlink(temporary)
            return false
        }
        return rename(temporary, path) == 0
    }

    /// The whole file, or `nil` when it cannot be opened (`errno` tells why).
    static func read(_ path: String) -> String? { TextFile.read(path) }
}
