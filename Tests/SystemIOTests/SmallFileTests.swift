import Foundation
import Dispatch
import Glibc
import Synchronization
import Testing
import SystemIO

@Suite struct SmallFileTests {
    func directory() -> String {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("gpstrackd-atomic-\(UUID().uuidString.prefix(8))").path
        try? FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        return path
    }

    @Test func neverFollowsALinkPlantedAtThePredictableTemporaryName() throws {
        let dir = directory()
        let victim = dir + "/victim"
        try "precious\n".write(toFile: victim, atomically: false, encoding: .utf8)
        for name in ["status.json", "gpstrackd.prom"] {
            #expect(symlink(victim, dir + "/\(name).tmp") == 0)
            try SmallFile.replace(dir + "/\(name)", with: "{\"ok\":true}\n")
            #expect(try String(contentsOfFile: dir + "/\(name)", encoding: .utf8) == "{\"ok\":true}\n")
        }
        #expect(try String(contentsOfFile: victim, encoding: .utf8) == "precious\n", "the link's target is untouched")
        let left = try FileManager.default.contentsOfDirectory(atPath: dir).filter { $0.contains(".tmp-") }
        #expect(left.isEmpty, "no temporary file is left behind: \(left)")
    }

    @Test func replacesTheFileWithTheModeAsked() throws {
        let dir = directory()
        try SmallFile.replace(dir + "/identity", with: "one", mode: 0o600)
        try SmallFile.replace(dir + "/identity", with: "two", mode: 0o600)
        #expect(try String(contentsOfFile: dir + "/identity", encoding: .utf8) == "two")
        var info = stat()
        #expect(stat(dir + "/identity", &info) == 0)
        #expect(info.st_mode & 0o777 == 0o600)
    }

    /// A snapshot written without fsync is still replaced whole: a reader beside the writer sees
    /// one complete version or the next, never a mixture or an empty file.
    @Test func aSnapshotThatIsNotDurableIsStillReplacedWhole() throws {
        let dir = directory()
        let path = dir + "/status.json"
        let versions = (0..<300).map { n in "{\"round\":\(n),\"pad\":\"" + String(repeating: "x", count: 5000 + n % 7 * 1000) + "\"}\n" }
        try SmallFile.replace(path, with: versions[0], durable: false)
        let writing = Atomic(true)
        let reads = Mutex((count: 0, torn: [String]()))
        let done = DispatchSemaphore(value: 0)
        DispatchQueue(label: "reader").async {
            while writing.load(ordering: .acquiring) {
                guard let text = try? SmallFile.read(path) else { continue }
                reads.withLock { r in
                    r.count += 1
                    if !versions.contains(text) { r.torn.append(String(text.prefix(40))) }
                }
            }
            done.signal()
        }
        for version in versions.dropFirst() { try SmallFile.replace(path, with: version, durable: false) }
        writing.store(false, ordering: .releasing)
        done.wait()
        let (count, torn) = reads.withLock { ($0.count, $0.torn) }
        #expect(torn.isEmpty, "every read is one whole version: \(torn.prefix(3))")
        #expect(count > 0)
        #expect(try SmallFile.read(path) == versions.last)
        let left = try FileManager.default.contentsOfDirectory(atPath: dir).filter { $0.contains(".tmp-") }
        #expect(left.isEmpty)
    }

    @Test func saysWhyItCannotWrite() {
        let error = #expect(throws: FileError.self) { try SmallFile.replace("/nonexistent-gpstrackd-dir/metrics.prom", with: "x") }
        #expect(error?.description == "cannot create a temporary file in /nonexistent-gpstrackd-dir: No such file or directory")
        #expect(error?.errno == .noSuchFile, "the errno of the call itself")
    }

    @Test func readsWholeFilesAndRefusesWhatIsNoSmallFile() throws {
        let dir = directory()
        try SmallFile.replace(dir + "/gpstrackd.conf", with: String(repeating: "x", count: 100_000))
        #expect(try SmallFile.read(dir + "/gpstrackd.conf").count == 100_000, "more than one read's worth")
        #expect(throws: FileError("read /dev/zero", .tooLarge(limit: 4096))) { try SmallFile.read("/dev/zero", limit: 4096) }
        #expect(throws: FileError("read \(dir)", .isDirectory)) { try SmallFile.read(dir) }
        #expect(throws: FileError("read \(dir)/missing", .system(.noSuchFile))) { try SmallFile.read(dir + "/missing") }
    }

    @Test func appendsDurablyAndNamesTheCallThatFailed() throws {
        let dir = directory()
        try SmallFile.append("one\n", to: dir + "/positions.jsonl")
        try SmallFile.append("two\n", to: dir + "/positions.jsonl")
        #expect(try SmallFile.read(dir + "/positions.jsonl") == "one\ntwo\n")
        #expect(throws: FileError("open \(dir)/missing/positions.jsonl", .system(.noSuchFile))) {
            try SmallFile.append("x", to: dir + "/missing/positions.jsonl")
        }
        // A full device: the write itself fails, and says so.
        #expect(throws: FileError("write /dev/full", .system(.noSpace))) { try SmallFile.append("x", to: "/dev/full") }
    }

    @Test func writesRetryShortWritesAndInterruptions() throws {
        var fds: [Int32] = [0, 0]
        #expect(pipe(&fds) == 0)
        let reader = FileDescriptor(rawValue: fds[0]), writer = FileDescriptor(rawValue: fds[1])
        defer { reader.close() }
        // More than a pipe holds at once: the writer is short-written and goes on.
        let text = String(repeating: "gpstrackd ", count: 20_000)
        let done = DispatchSemaphore(value: 0)
        DispatchQueue.global().async {
            try? writer.writeAll(text)
            writer.close()
            done.signal()
        }
        let all = try reader.readAll(limit: 1 << 20)
        done.wait()
        #expect(all.count == text.utf8.count)
        var calls = 0
        let result = try FileDescriptor.retrying { () -> Int32 in
            calls += 1
            if calls < 3 {
                errno = EINTR
                return -1
            }
            return 7
        }
        #expect(result == 7 && calls == 3, "EINTR is retried")
    }
}
