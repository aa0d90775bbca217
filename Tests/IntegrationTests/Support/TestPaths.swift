import Foundation

/// Where the test fixtures and the built `gpstrackd` binary are.
enum TestPaths {
    static let fixtures = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().appendingPathComponent("Fixtures")

    static func fixture(_ name: String) -> String { fixtures.appendingPathComponent(name).path }

    /// The `gpstrackd` executable built next to the test bundle.
    static var gpstrackd: String { executable("gpstrackd") }

    /// The benchmark and test-helper executable.
    static var bench: String { executable("gpstrackd-bench") }

    /// An executable product of this package, built next to the test bundle.
    static func executable(_ name: String) -> String {
        let exe = URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath()
        var directory = exe.deletingLastPathComponent()
        // The test bundle may be a directory (`*.xctest/...`) on some layouts.
        for _ in 0..<4 {
            let candidate = directory.appendingPathComponent(name)
            if FileManager.default.isExecutableFile(atPath: candidate.path) { return candidate.path }
            directory = directory.deletingLastPathComponent()
        }
        return exe.deletingLastPathComponent().appendingPathComponent(name).path
    }

    /// A new empty directory under the system temporary directory.
    static func temporaryDirectory(_ label: String) -> URL {
        let url = FileManager.default.temporaryDirectory
            .appendingPathComponent("gpstrackd-tests-\(label)-\(UUID().uuidString.prefix(8))")
        try? FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        return url
    }
}
