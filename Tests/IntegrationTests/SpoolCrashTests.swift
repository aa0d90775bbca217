import Foundation
import Glibc
import Spool
import TestSupport
import Testing
import TrackingCore

/// The spool's durability contract with a real process: a child appends in a loop and reports
/// each append that returned; it is killed with SIGKILL at random moments, many times over.
@Suite struct SpoolCrashTests {
    @Test func everyReturnedAppendSurvivesSIGKILL() async throws {
        let directory = TestPaths.temporaryDirectory("spool-crash")
        let spoolDirectory = directory.appendingPathComponent("state").path
        var reported: [Int] = []
        let rounds = 30
        for round in 0..<rounds {
            let child = try ChildProcess(TestPaths.bench, ["spool-append-loop", spoolDirectory], directory: directory, name: "child-\(round)")
            #expect(await ChildProcess.waitUntil(timeout: 10) { !child.stdout.isEmpty }, "\(child.stderr)")
            try await Task.sleep(for: .milliseconds(Int.random(in: 0...120)))
            child.send(SIGKILL)
            #expect(await child.waitForExit(timeout: 5))
            #expect(child.terminationStatus == 128 + SIGKILL)
            // Only whole lines count: a number is reported once its newline is out.
            var text = child.stdout
            if !text.hasSuffix("\n"), let cut = text.lastIndex(of: "\n") { text = String(text[...cut]) }
            reported += text.split(separator: "\n").compactMap { Int($0) }
        }
        let spool = try await Spool.open(.init(directory: spoolDirectory))
        #expect(try await spool.integrityCheck() == "ok")
        let start = FixTime(iso8601: "2026-11-30T08:00:00Z")!
        let stored = try await spool.peek(limit: 10_000_000).map { Int(start.seconds(to: $0.location.time).rounded()) }
        print("spool crash test: \(rounds) SIGKILLs, \(reported.count) appends reported, \(stored.count) rows stored")
        #expect(reported.count > rounds)
        #expect(stored == stored.sorted(), "rows are in append order")
        #expect(Set(stored).count == stored.count, "no row twice")
        let missing = Set(reported).subtracting(stored)
        #expect(missing.isEmpty, "appends that returned but are gone: \(missing.sorted().prefix(10))")
        #expect(stored.count - reported.count <= rounds, "at most one unreported (committed, not yet printed) append per kill")
    }
}
