import Foundation
import Glibc

/// A child process whose stdout and stderr go to files, for tests that run real programs.
///
/// Started with `posix_spawn`, with an empty signal mask and default signal actions: the test
/// runner's threads block most signals, and a child that inherited that mask (as Foundation's
/// `Process` lets it) would ignore the SIGINT/SIGTERM the tests send.
public final class ChildProcess: @unchecked Sendable {
    /// A program that could not be started, with the reason.
    public struct Failure: Error, CustomStringConvertible {
        public var description: String
    }

    public let pid: pid_t
    public let stdoutPath: String
    public let stderrPath: String
    private let lock = NSLock()
    private var exitStatus: Int32?

    public init(_ executable: String, _ arguments: [String], directory: URL, name: String) throws {
        stdoutPath = directory.appendingPathComponent("\(name).stdout").path
        stderrPath = directory.appendingPathComponent("\(name).stderr").path
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 1, stdoutPath, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
        posix_spawn_file_actions_addopen(&actions, 2, stderrPath, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        var empty = sigset_t()
        sigemptyset(&empty)
        var all = sigset_t()
        sigfillset(&all)
        posix_spawnattr_setsigmask(&attributes, &empty)
        posix_spawnattr_setsigdefault(&attributes, &all)
        posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF))
        let argv = ([executable] + arguments).map { strdup($0) } + [nil]
        defer { for pointer in argv { free(pointer) } }
        var child: pid_t = 0
        let result = posix_spawn(&child, executable, &actions, &attributes, argv, environ)
        guard result == 0 else {
            throw Failure(description: "cannot start \(executable): \(String(cString: strerror(result)))")
        }
        pid = child
    }

    deinit {
        if isRunning {
            kill(pid, SIGKILL)
            _ = reap(blocking: true)
        }
    }

    public var stdout: String { (try? String(contentsOfFile: stdoutPath, encoding: .utf8)) ?? "" }
    public var stderr: String { (try? String(contentsOfFile: stderrPath, encoding: .utf8)) ?? "" }
    public var stdoutLines: [String] { stdout.split(whereSeparator: \.isNewline).map(String.init) }

    /// The exit status once the process has exited (128 + N when killed by signal N).
    public var terminationStatus: Int32 {
        _ = reap(blocking: false)
        return lock.withLock { exitStatus } ?? -1
    }

    public var isRunning: Bool { !reap(blocking: false) }

    public func send(_ signal: Int32) {
        if isRunning { kill(pid, signal) }
    }

    /// Waits for exit up to `timeout` seconds; kills the process and returns false when it is still running.
    /// Sleeps with `Task.sleep`, so waiting tests never hold a thread of the shared pool.
    @discardableResult
    public func waitForExit(timeout: TimeInterval) async -> Bool {
        let deadline = Date().addingTimeInterval(timeout)
        while Date() < deadline {
            if reap(blocking: false) { return true }
            try? await Task.sleep(for: .milliseconds(5))
        }
        // Once more at the deadline: a sleep that overran it (the shared pool busy with the
        // suite's first seconds) must not turn a child that has exited into one that hung.
        if reap(blocking: false) { return true }
        kill(pid, SIGKILL)
        _ = reap(blocking: true)
        return false
    }

    /// Waits for the exit, holding the calling thread, and returns the exit status: for a short
    /// tool (mount) whose caller cannot await. Unlike Foundation's `Process.waitUntilExit`, it
    /// waits in `waitpid`, not on a run loop that must hear of the exit.
    public func waitForExit() -> Int32 {
        _ = reap(blocking: true)
        return terminationStatus
    }

    /// Collects the exit status; true once the process has exited.
    private func reap(blocking: Bool) -> Bool {
        lock.withLock {
            if exitStatus != nil { return true }
            var status: Int32 = 0
            let result = waitpid(pid, &status, blocking ? 0 : WNOHANG)
            guard result == pid else { return result < 0 }
            let signalled = status & 0x7f
            exitStatus = signalled == 0 ? (status >> 8) & 0xff : 128 + signalled
            return true
        }
    }

    /// Polls `condition` every 50 ms up to `timeout` seconds.
    public static func waitUntil(timeout: TimeInterval, _ condition: () -> Bool) async -> Bool {
        await eventually(within: .milliseconds(Int64(timeout * 1000)), condition)
    }

    /// Clean-up for `defer`: SIGKILL if still running; `deinit` reaps it.
    public func terminate() {
        if isRunning { kill(pid, SIGKILL) }
    }
}
