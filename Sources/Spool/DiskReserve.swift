import Glibc

/// Room the spool keeps for itself on the state directory's filesystem, as an allocated file.
///
/// On a full disk SQLite needs room to make room: thinning old positions is a transaction, and
/// its pages go to the write-ahead log first. When another program fills the disk, deleting this
/// file gives the spool the room for that and for the newest positions; it is made again once the
/// disk has room. Its size is a sixteenth of the filesystem, from 64 KiB to 4 MiB.
final class DiskReserve {
    let path: String
    let size: Int64
    private let directory: String

    init(directory: String, fileName: String = "spool.reserve") {
        self.directory = directory
        path = directory + "/" + fileName
        let total = Self.filesystem(directory).map { $0.total } ?? 0
        size = min(4 << 20, max(64 << 10, total / 16))
    }

    /// Whether the reserve file is there.
    var isHeld: Bool { access(path, F_OK) == 0 }

    /// Bytes an unprivileged writer can still use on the filesystem, if it can be asked.
    var available: Int64? { Self.filesystem(directory)?.available }

    /// Whether the disk is nearly full: less room than the reserve's size (beside the reserve).
    var isLow: Bool { available.map { $0 < size } ?? false }

    /// Makes the reserve when there is room for it and as much again; true when it is there.
    @discardableResult
    func replenish() -> Bool {
        if isHeld { return true }
        guard let available, available > 2 * size else { return false }
        let fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0o600)
        guard fd >= 0 else { return false }
        let allocated = posix_fallocate(fd, 0, off_t(size)) == 0 && fsync(fd) == 0
        close(fd)
        if !allocated { unlink(path) }
        return allocated
    }

    /// Deletes the reserve to give its room to the spool; false when there was none.
    func release() -> Bool {
        unlink(path) == 0
    }

    private static func filesystem(_ directory: String) -> (total: Int64, available: Int64)? {
        var info = statvfs()
        guard statvfs(directory, &info) == 0 else { return nil }
        let unit = Int64(info.f_frsize)
        return (Int64(info.f_blocks) * unit, Int64(info.f_bavail) * unit)
    }
}
