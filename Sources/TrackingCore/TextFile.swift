#if canImport(Glibc)
import Glibc
#endif

/// Whole small text files (configuration, credentials, status), read with stdio.
public enum TextFile {
    /// The whole file, or `nil` when it cannot be opened (`errno` tells why).
    public static func read(_ path: String) -> String? {
        guard let file = fopen(path, "r") else { return nil }
        defer { fclose(file) }
        var bytes: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 4096)
        while true {
            let count = fread(&buffer, 1, buffer.count, file)
            if count <= 0 { break }
            bytes += buffer[0..<count]
        }
        return String(decoding: bytes, as: UTF8.self)
    }
}
