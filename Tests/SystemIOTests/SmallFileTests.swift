import Foundation
import Glibc
import Testing
import TrackingCore

@Suite struct AtomicFileTests {
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
            #expect(AtomicFile.write("{\"ok\":true}\n", to: dir + "/\(name)") == nil)
            #expect(try String(contentsOfFile: dir + "/\(name)", encoding: .utf8) == "{\"ok\":true}\n")
        }
        #expect(try String(contentsOfFile: victim, encoding: .utf8) == "precious\n", "the link's target is untouched")
        let left = try FileManager.default.contentsOfDirectory(atPath: dir).filter { $0.contains(".tmp-") }
        #expect(left.isEmpty, "no temporary file is left behind: \(left)")
    }

    @Test func replacesTheFileWithTheModeAsked() throws {
        let dir = directory()
        #expect(AtomicFile.write("one", to: dir + "/identity", mode: 0o600) == nil)
        #expect(AtomicFile.write("two", to: dir + "/identity", mode: 0o600) == nil)
        #expect(try String(contentsOfFile: dir + "/identity", encoding: .utf8) == "two")
        var info = stat()
        #expect(stat(dir + "/identity", &info) == 0)
        #expect(info.st_mode & 0o777 == 0o600)
    }

    @Test func saysWhyItCannotWrite() {
        let problem = AtomicFile.write("x", to: "/nonexistent-gpstrackd-dir/metrics.prom")
        #expect(problem?.contains("/nonexistent-gpstrackd-dir") == true)
        #expect(problem?.contains("No such file or directory") == true, "\(problem ?? "")")
    }
}
