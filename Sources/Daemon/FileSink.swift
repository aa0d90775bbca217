import Glibc
import Spool
import TrackingCore

/// The `file` sink: drains the spool into JSON lines (the `watch` schema plus `"kept"`), fsynced
/// before the rows are acknowledged, rotated to `<file>.1` beyond `maxBytes`.
public final class FileSink: Sendable {
    public let path: String
    public let maxBytes: Int64
    private let spool: Spool

    public init(path: String, maxBytes: Int64, spool: Spool) {
        self.path = path
        self.maxBytes = maxBytes
        self.spool = spool
    }

    /// Moves everything queued into the file; returns how many positions were written.
    @discardableResult
    public func drain() async throws -> Int {
        var written = 0
        while true {
            let rows = try await spool.peek(limit: 500)
            if rows.isEmpty { return written }
            let text = rows.map { row in
                LocationJSON.line(for: row.location, extra: row.kept.map { [("kept", $0.rawValue)] } ?? []) + "\n"
            }.joined()
            guard append(text) else {
                await spool.release(rows.map(\.id))
                throw SpoolError.directory(path: path, reason: String(cString: strerror(errno)))
            }
            try await spool.ack(rows.map(\.id))
            written += rows.count
        }
    }

    private func append(_ text: String) -> Bool {
        var info = stat()
        if stat(path, &info) == 0, Int64(info.st_size) >= maxBytes {
            rename(path, path + ".1")
        }
        let fd = open(path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0o640)
        guard fd >= 0 else { return false }
        defer { close(fd) }
        guard FileOutput.write(text, to: fd) else { return false }
        return fsync(fd) == 0
    }
}
