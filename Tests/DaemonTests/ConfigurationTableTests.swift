@testable import Daemon
import Foundation
import Testing

/// The key table is the one place a key is declared: its value, help, default and whether a
/// reload applies it. `--help`, check-config and reload all read it.
@Suite struct ConfigurationTableTests {
    static func load(_ flags: [String], environment: [String: String] = [:]) throws(ConfigurationError) -> DaemonSettings.Loaded {
        try DaemonSettings.load(flags: flags, environment: environment, hostname: "van-3")
    }

    @Test func checkConfigNamesEveryMistakeNotOnlyTheFirst() throws {
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("gpstrackd-table-\(UUID().uuidString.prefix(8)).conf").path
        try "max-deviation = -3\nupload-interval = 7200\nno equals here\n".write(toFile: file, atomically: true, encoding: .utf8)
        let error = #expect(throws: ConfigurationError.self) {
            try Self.load(["--config", file, "--batch-size", "0", "--colour", "red"], environment: ["GPSTRACKD_LOG_LEVEL": "loud"])
        }
        let all = try #require(error).all
        #expect(all.map(\.key) == ["colour", "max-deviation", "upload-interval", "no", "log-level", "batch-size"], "\(all)")
        #expect(error?.description.split(separator: "\n").count == 6)
    }

    @Test func anUnknownKeySuggestsTheNearestKnownOne() throws {
        func problem(_ flags: [String], environment: [String: String] = [:]) -> String? {
            do {
                _ = try Self.load(flags, environment: environment)
                return nil
            } catch {
                return error.problem
            }
        }
        #expect(problem(["--max-devation", "5"]) == "unknown setting; did you mean --max-deviation?")
        #expect(problem(["--uplaod-interval", "5"]) == "unknown setting; did you mean --upload-interval?")
        #expect(problem([], environment: ["GPSTRACKD_TRAKER": "t"])?.hasSuffix("did you mean GPSTRACKD_TRACKER?") == true)
        #expect(problem(["--colour", "red"]) == "unknown setting; see gpstrackd --help", "nothing near it")
    }

    @Test func helpListsEveryKeyWithItsValueDefaultAndReloadFromTheTable() {
        let usage = Command.usage
        for key in DaemonSettings.keys {
            #expect(!key.help.isEmpty, "\(key.name) says what it does")
            if FilterSettings.isKey(key.name) {
                #expect(usage.contains("--\(key.name) "), "\(key.name)")
                continue
            }
            let line = usage.split(separator: "\n").first { $0.hasPrefix("  --\(key.name) \(key.value)") }
            #expect(line?.hasSuffix("(default \(key.defaultValue)\(key.live ? "; live" : ""))") == true, "\(key.name): \(line ?? "missing")")
        }
    }

    @Test func theDefaultsTheTableStatesAreTheDefaultsInForce() throws {
        let loaded = try Self.load(["--state-dir", DaemonSettings.defaults.stateDirectory, "--device-id", DaemonSettings.defaults.deviceID])
        for key in DaemonSettings.keys where key.defaultText == nil {
            #expect(key.show(loaded.configuration) == key.show(DaemonSettings.defaults), "\(key.name)")
        }
    }
}
