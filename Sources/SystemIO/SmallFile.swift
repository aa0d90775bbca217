import Glibc

/// Whole small files: configuration, credentials, status, the daemon's memory.
public enum SmallFile {
    /// Files larger than this are not read whole.
    public static let defaultLimit = 1 << 20

    /// The whole file as text.
    public static func read(_ path: String, limit: Int = defaultLimit) throws(FileError) -> String {
        let fd: FileDescriptor
        do throws(Errno) { fd = try .open(path, O_RDONLY) } catch { throw FileError("read \(path)", .system(error)) }
        defer { fd.close() }
        do throws(FileError.Reason) {
            let info: stat
            do throws(Errno) { info = try fd.status() } catch { throw .system(error) }
            if info.st_mode & S_IFMT == S_IFDIR { throw .isDirectory }
            return String(decoding: try fd.readAll(limit: limit), as: UTF8.self)
        } catch {
            throw FileError("read \(path)", error)
        }
    }

    /// Replaces `path` durably: readers see the old or the new content, never a half-written one,
    /// and a crash leaves one of the two. A new temporary file beside it (`mkstemp`: a fresh name,
    /// never a link someone planted at a predictable `<file>.tmp`), written, fsynced, renamed over
    /// it, then the directory fsynced.
    ///
    /// `durable: false` keeps the rename's atomicity but skips both fsyncs, for snapshots rewritten
    /// every few seconds (status.json, the metrics file): after a power cut the newest or an older
    /// snapshot is there (or, on a file system without a journal, possibly an empty one that the
    /// next round replaces), and a box running for months does not flush its flash twice a round.
    public static func replace(_ path: String, with text: String, mode: mode_t = 0o644, durable: Bool = true) throws(FileError) {
        let directory = path.lastIndex(of: "/").map { String(path[..<$0]) } ?? "."
        let shownDirectory = directory.isEmpty ? "/" : directory
        var template = Array((path + ".tmp-XXXXXX").utf8CString)
        let raw = template.withUnsafeMutableBufferPointer { mkstemp($0.baseAddress!) }
        guard raw >= 0 else { throw FileError("create a temporary file in \(shownDirectory)", .system(.current)) }
        _ = fcntl(raw, F_SETFD, FD_CLOEXEC)
        let fd = FileDescriptor(rawValue: raw)
        let temporary = template.withUnsafeBufferPointer { String(cString: $0.baseAddress!) }
        do throws(FileError) {
            defer { fd.close() }
            do throws(Errno) { try FileDescriptor.retrying { fchmod(raw, mode) } } catch { throw FileError("set the mode of \(temporary)", .system(error)) }
            do throws(Errno) { try fd.writeAll(text) } catch { throw FileError("write \(temporary)", .system(error)) }
            if durable {
                do throws(Errno) { try fd.sync() } catch { throw FileError("flush \(temporary)", .system(error)) }
            }
            guard rename(temporary, path) == 0 else { throw FileError("rename \(temporary) to \(path)", .system(.current)) }
        } catch {
            unlink(temporary)
            throw error
        }
        // The rename itself durable: the directory's entry.
        if durable, let directoryFD = try? FileDescriptor.open(shownDirectory, O_RDONLY | O_DIRECTORY) {
            try? directoryFD.sync()
            directoryFD.close()
        }
    }

    /// Appends `text` and makes it durable (the file sink's write).
    public static func append(_ text: String, to path: String, mode: mode_t = 0o640) throws(FileError) {
        let fd: FileDescriptor
        do throws(Errno) { fd = try .open(path, O_WRONLY | O_CREAT | O_APPEND, mode: mode) } catch { throw FileError("open \(path)", .system(error)) }
        defer { fd.close() }
        do throws(Errno) { try fd.writeAll(text) } catch { throw FileError("write \(path)", .system(error)) }
        do throws(Errno) { try fd.sync() } catch { throw FileError("fsync \(path)", .system(error)) }
    }
}
