import Glibc
import SystemIO
import TrackingCore

/// Unbuffered writes of whole lines to a file descriptor (stderr for logs, stdout for data).
public enum StandardError {
    /// Writes `text` to stderr in one call where possible.
    @Sendable public static func write(_ text: String) {
        try? FileDescriptor.standardError.writeAll(text)
    }
}
