import Foundation
import Glibc

/// A small tmpfs of its own for a test: a real filesystem that fills up or turns read-only.
/// Needs root (mount); tests check `getuid() == 0` first and say they skipped.
public struct ScratchFilesystem: Sendable {
    public let path: String

    public struct Failure: Error, CustomStringConvertible {
        public var description: String
    }

    public init(megabytes: Int) throws {
        path = FileManager.default.temporaryDirectory.appendingPathComponent("gpstrackd-fs-\(UUID().uuidString.prefix(8))").path
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        try Self.run("/bin/mount", ["-t", "tmpfs", "-o", "size=\(megabytes)m,mode=0755", "tmpfs", path])
    }

    public func remount(readOnly: Bool) throws {
        try Self.run("/bin/mount", ["-o", "remount,\(readOnly ? "ro" : "rw")", path])
    }

    /// Writes a file until the filesystem is full; returns its path.
    public func fill(name: String = "filler") -> String {
        let file = path + "/" + name
        // Close-on-exec: a child another test starts meanwhile must not keep the file (and its
        // space) alive after the test removes it.
        let fd = open(file, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644)
        let block = [UInt8](repeating: 0xEE, count: 64 * 1024)
        var size = block.count
        while size >= 512 {
            if write(fd, block, size) < 0 { size /= 2 }
        }
        fsync(fd)
        close(fd)
        return file
    }

    public func remove() {
        try? Self.run("/bin/umount", ["-l", path])
        try? FileManager.default.removeItem(atPath: path)
    }

    /// Runs `tool` to its end. Not with Foundation's `Process`: its `waitUntilExit` waits on a run
    /// loop for word of the exit, and off the main thread, with the suite's tests in parallel,
    /// that word can fail to come, and the test waits for good.
    public static func run(_ tool: String, _ arguments: [String]) throws {
        let name = "gpstrackd-\(URL(fileURLWithPath: tool).lastPathComponent)-\(UUID().uuidString.prefix(8))"
        let child = try ChildProcess(tool, arguments, directory: FileManager.default.temporaryDirectory, name: name)
        let status = child.waitForExit()
        let said = child.stderr.trimmingCharacters(in: .whitespacesAndNewlines)
        try? FileManager.default.removeItem(atPath: child.stdoutPath)
        try? FileManager.default.removeItem(atPath: child.stderrPath)
        guard status == 0 else {
            throw Failure(description: "\(tool) \(arguments.joined(separator: " ")) exited \(status)\(said.isEmpty ? "" : ": " + said)")
        }
    }
}
