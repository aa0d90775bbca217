import Daemon
import Testing

@Suite struct CommandTests {
    @Test func theDaemonIsTheDefaultCommand() throws {
        #expect(try Command.parse([]) == .run(flags: []))
        #expect(try Command.parse(["--state-dir", "./state"]) == .run(flags: ["--state-dir", "./state"]))
        #expect(try Command.parse(["run", "--gpsd", "h:1"]) == .run(flags: ["--gpsd", "h:1"]))
    }

    @Test func acceptsTheSeparatorThatSwiftRunPassesOn() throws {
        #expect(try Command.parse(["--", "--state-dir", "./state"]) == .run(flags: ["--state-dir", "./state"]))
        #expect(try Command.parse(["--", "watch"]) == .watch(WatchOptions()))
    }

    @Test func namesSubcommands() throws {
        #expect(try Command.parse(["status", "--json"]) == .status(flags: ["--json"]))
        #expect(try Command.parse(["check-config"]) == .checkConfig(flags: []))
        #expect(try Command.parse(["--version"]) == .version)
        #expect(throws: CommandLineError.self) { try Command.parse(["fly"]) }
    }
}
