#if canImport(Glibc)
import Glibc
#endif

/// Whole-buffer writes to a file descriptor, retrying short writes and `EINTR`.
public enum FileOutput {
    /// Writes all of `text`; returns false when the descriptor is closed or fails (e.g. `EPIPE`).
    public static func write(_ text: String, to descriptor: Int32) -> Bool {
        var text = text
        return text.withUTF8 { buffer in
            var offset = 0
            while offset < buffer.count {
                let written = Glibc.write(descriptor, buffer.baseAddress! + offset, buffer.count - offset)
                if written < 0 {
                    if errno == EINTR { continue }
                    return false
                }
                offset += written
            }
            return true
        }
    }
}
