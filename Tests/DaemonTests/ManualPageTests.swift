import Foundation
import Testing
@testable import Daemon

/// The manual pages are written from the key table and the command list, and say what `--help`
/// says; the README's setup is the two commands CI runs.
@Suite struct ManualPageTests {
    @Test func theConfigurationPageListsEveryKeyWithItsDefaultAndReload() throws {
        let page = try #require(ManualPage.page("5"))
        #expect(page.hasPrefix(".TH GPSTRACKD.CONF 5"))
        for key in DaemonSettings.keys {
            let entry = try #require(page.range(of: ".BI \"\(ManualPage.escape(key.name)) = \""), "\(key.name) is in gpstrackd.conf(5)")
            let rest = page[entry.upperBound...].split(separator: ".TP", maxSplits: 1).first ?? ""
            #expect(rest.contains(key.live ? "applied live on SIGHUP" : "needs a restart"), "\(key.name): live or restart")
            #expect(rest.contains("Default: \(ManualPage.escape(key.defaultValue))"), "\(key.name): its default")
            if key.secret { #expect(rest.contains("a secret")) }
            #expect(Command.usage.contains("--\(key.name) "), "--help names \(key.name) too")
        }
    }

    @Test func theProgramPageListsEveryCommandSignalAndExitStatus() throws {
        let page = try #require(ManualPage.page("8"))
        for name in Command.names {
            #expect(page.contains(".B \(ManualPage.escape(name))\n"), "gpstrackd(8) describes \(name)")
            #expect(Command.usage.contains("gpstrackd \(name)") || name == "run", "--help names \(name)")
            let arguments = ["man-page": [name, "8"], "history": [name, "--tracker", "fleet"]][name] ?? [name]
            #expect(throws: Never.self, "\(name) is a command") { _ = try Command.parse(arguments) }
        }
        for signal in ["SIGTERM", "SIGINT", "SIGHUP", "SIGUSR1"] { #expect(page.contains(signal)) }
        for code in ExitCode.allCases { #expect(page.contains(".B \(code.rawValue)\n"), "exit status \(code.rawValue)") }
        #expect(ManualPage.page("7") == nil)
        #expect(throws: CommandLineError.self) { try Command.parse(["man-page", "7"]) }
    }

    @Test func roffControlCharactersAreEscaped() {
        #expect(ManualPage.escape("max-deviation") == "max\\-deviation")
        #expect(ManualPage.escape(".hidden") == "\\&.hidden")
        #expect(ManualPage.escape("a\\b") == "a\\eb")
    }

    /// The README's setup section: just `make run` and `make test`, and CI runs the second.
    @Test func theReadmeSetupIsTheTwoCommandsCIRuns() throws {
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        let readme = try String(contentsOf: root.appendingPathComponent("README.md"), encoding: .utf8)
        let start = try #require(readme.range(of: "\n## Setup"))
        let section = readme[start.upperBound...]
        let end = section.range(of: "\n## ")?.lowerBound ?? section.endIndex
        var commands: [String] = []
        var inBlock = false
        for line in section[..<end].split(separator: "\n", omittingEmptySubsequences: false) {
            if line.hasPrefix("```") { inBlock.toggle(); continue }
            if inBlock, !line.trimmingCharacters(in: .whitespaces).isEmpty, !line.hasPrefix("#") { commands.append(String(line)) }
        }
        #expect(commands == ["make run", "make test"])
        let ci = try String(contentsOf: root.appendingPathComponent(".ci/run"), encoding: .utf8)
        #expect(ci.split(separator: "\n").last == "make test")
    }
}
