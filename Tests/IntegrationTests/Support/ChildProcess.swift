import Foundation
import Glibc

/// A child process whose stdout and stderr go to files, for tests that run real programs.
final class ChildProcess: @unchecked Sendable {
    let process = Process()
    let stdoutPath: String
    let stderrPath: String
    private(set) var signalledAt: Date?

    init(_ executable: String, _ arguments: [String], directory: URL, name: String, environment: [String: String]? = nil) throws {
        stdoutPath = directory.appendingPathComponent("\(name).stdout").path
        stderrPath = directory.appendingPathComponent("\(name).stderr").path
        _ = FileManager.default.createFile(atPath: stdoutPath, contents: nil)
        _ = FileManager.default.createFile(atPath: stderrPath, contents: nil)
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        if let environment { process.environment = environment }
        process.standardOutput = FileHandle(forWritingAtPath: stdoutPath)
        process.standardError = FileHandle(forWritingAtPath: stderrPath)
        process.standardInput = FileHandle.nullDevice
        try process.run()
    }

    var stdout: String { (try? String(contentsOfFile: stdoutPath, encoding: .utf8)) ?? "" }
    var stderr: String { (try? String(contentsOfFile: stderrPath, encoding: .utf8)) ?? "" }
    var stdoutLines: [String] { stdout.split(separator: "\n").map(String.init) }

    func send(_ signal: Int32) {
        signalledAt = Date()
        kill(process.processIdentifier, signal)
    }

    /// Waits for exit up to `timeout` seconds; returns the seconds since the last signal (or nil).
    @discardableResult
    func waitForExit(timeout: TimeInterval) -> Bool {
        let deadline = Date().addingTimeInterval(timeout)
        while process.isRunning, Date() < deadline { usleep(10_000) }
        if process.isRunning {
            kill(process.processIdentifier, SIGKILL)
            process.waitUntilExit()
            return false
        }
        process.waitUntilExit()
        return true
    }

    /// Polls `condition` every 50 ms up to `timeout` seconds.
    static func waitUntil(timeout: TimeInterval, _ condition: () -> Bool) -> Bool {
        let deadline = Date().addingTimeInterval(timeout)
        while Date() < deadline {
            if condition() { return true }
            usleep(50_000)
        }
        return condition()
    }

    func terminate() {
        if process.isRunning {
            kill(process.processIdentifier, SIGTERM)
            if !waitForExit(timeout: 5) { return }
        }
    }
}
