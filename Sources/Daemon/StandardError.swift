import Glibc

/// Unbuffered writes of whole lines to a file descriptor (stderr for logs, stdout for data).
public enum StandardError {
    /// Writes `text` to stderr in one call where possible.
    @Sendable public static func write(_ text: String) {
        _ = FileOutput.write(text, to: 2)
    }
}

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
