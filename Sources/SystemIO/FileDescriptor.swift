import Glibc

/// An open file, in swift-system's shape: every call retries `EINTR`, writes are whole, and a
/// failure is an `Errno` taken at the call. Closed explicitly (`close()`), or with `closeAfter`.
public struct FileDescriptor: Sendable, Equatable {
    public let rawValue: Int32

    public init(rawValue: Int32) { self.rawValue = rawValue }

    public static let standardOutput = FileDescriptor(rawValue: 1)
    public static let standardError = FileDescriptor(rawValue: 2)

    /// Opens `path` (`O_CLOEXEC` always added).
    public static func open(_ path: String, _ flags: Int32, mode: mode_t = 0o644) throws(Errno) -> FileDescriptor {
        let fd = try retrying { Glibc.open(path, flags | O_CLOEXEC, mode) }
        return FileDescriptor(rawValue: fd)
    }

    /// Runs `body`, then closes.
    public func closeAfter<T, E: Error>(_ body: (FileDescriptor) throws(E) -> T) throws(E) -> T {
        defer { close() }
        return try body(self)
    }

    public func close() { _ = Glibc.close(rawValue) }

    /// Writes all of `bytes`, through short writes.
    public func writeAll(_ bytes: UnsafeRawBufferPointer) throws(Errno) {
        var offset = 0
        while offset < bytes.count {
            let written = try Self.retrying { Glibc.write(rawValue, bytes.baseAddress! + offset, bytes.count - offset) }
            offset += written
        }
    }

    public func writeAll(_ text: String) throws(Errno) {
        var text = text
        let result: Result<Void, Errno> = text.withUTF8 { buffer in
            do throws(Errno) {
                try writeAll(UnsafeRawBufferPointer(buffer))
                return .success(())
            } catch {
                return .failure(error)
            }
        }
        try result.get()
    }

    /// Up to `count` bytes; empty at the end of the file.
    public func read(upTo count: Int) throws(Errno) -> [UInt8] {
        var buffer = [UInt8](repeating: 0, count: count)
        let result: Result<Int, Errno> = buffer.withUnsafeMutableBytes { raw in
            do throws(Errno) {
                return .success(try Self.retrying { Glibc.read(rawValue, raw.baseAddress, raw.count) })
            } catch {
                return .failure(error)
            }
        }
        return Array(buffer[0..<(try result.get())])
    }

    /// Everything to the end, refusing more than `limit` bytes (a path that is no small file:
    /// `/dev/zero`, a log) rather than reading forever.
    public func readAll(limit: Int) throws(FileError.Reason) -> [UInt8] {
        var bytes: [UInt8] = []
        while true {
            let chunk: [UInt8]
            do throws(Errno) { chunk = try read(upTo: 65_536) } catch { throw .system(error) }
            if chunk.isEmpty { return bytes }
            bytes += chunk
            if bytes.count > limit { throw .tooLarge(limit: limit) }
        }
    }

    /// Makes what was written durable (fsync).
    public func sync() throws(Errno) {
        _ = try Self.retrying { fsync(rawValue) }
    }

    /// The file's size and kind.
    public func status() throws(Errno) -> stat {
        var info = stat()
        _ = try Self.retrying { fstat(rawValue, &info) }
        return info
    }

    /// Calls `body` until it does not fail with `EINTR`; a negative result throws the errno of
    /// that call.
    @discardableResult
    public static func retrying<T: BinaryInteger>(_ body: () -> T) throws(Errno) -> T {
        while true {
            let result = body()
            if result >= 0 { return result }
            let error = Errno.current
            if error != .interrupted { throw error }
        }
    }
}
