@testable import Daemon
import Glibc
import Synchronization
import Testing
import TestSupport

/// The service group alone, with services that record what is asked of them and signals and a
/// deadline the test drives.
@Suite struct ServiceGroupTests {
    /// What happened, in order, across the services.
    final class Journal: Sendable {
        private let lines = Mutex<[String]>([])
        func add(_ line: String) { lines.withLock { $0.append(line) } }
        var all: [String] { lines.withLock { $0 } }
    }

    /// A service that runs until asked to stop `stopsAfter` times (a stubborn one needs the
    /// cancellation's second ask), or ends or fails on its own when told to.
    final class Recorder: Service {
        let name: String
        let journal: Journal
        let stopsAfter: Int
        let failure: String?
        private let asks = Mutex(0)
        private let latch = ShutdownLatch()
        let endOnItsOwn = ShutdownLatch()

        init(_ name: String, _ journal: Journal, stopsAfter: Int = 1, failure: String? = nil) {
            self.name = name
            self.journal = journal
            self.stopsAfter = stopsAfter
            self.failure = failure
        }

        struct Failure: Error, CustomStringConvertible { var description: String }

        func run() async throws {
            journal.add("\(name) runs")
            await withTaskGroup(of: Void.self) { group in
                group.addTask { await self.latch.wait() }
                group.addTask { await self.endOnItsOwn.wait() }
                await group.next()
                group.cancelAll()
                self.latch.open()
                self.endOnItsOwn.open()
            }
            journal.add("\(name) ended")
            if let failure { throw Failure(description: failure) }
        }

        func shutDownGracefully() {
            let count = asks.withLock { n -> Int in
                n += 1
                return n
            }
            journal.add("\(name) asked to stop")
            if count >= stopsAfter { latch.open() }
        }
    }

    static func started(_ journal: Journal, _ count: Int) async throws {
        try #require(await eventually { journal.all.filter { $0.hasSuffix(" runs") }.count >= count }, "\(count) services run")
    }

    @Test func aSignalStopsTheServicesInReverseOrderEachAfterTheNextHasEnded() async throws {
        let journal = Journal()
        let services = ["status", "sink", "pipeline"].map { Recorder($0, journal) }
        let (signals, send) = AsyncStream.makeStream(of: Int32.self)
        let events = Journal()
        let group = ServiceGroup(services: services, signals: signals, deadline: .seconds(20), events: { events.add("\($0)") })
        let running = Task { await group.run() }
        try await Self.started(journal, 3)
        send.yield(SIGTERM)
        let (ending, error) = await running.value
        #expect(ending == .signal(SIGTERM))
        #expect(error == nil)
        let stops = journal.all.filter { !$0.hasSuffix(" runs") }
        #expect(stops == ["pipeline asked to stop", "pipeline ended", "sink asked to stop", "sink ended", "status asked to stop", "status ended"])
        #expect(events.all.first == "\(ServiceGroup.Event.shutdownBegan(signal: SIGTERM, service: nil))")
    }

    @Test func aServiceThatEndsOnItsOwnStopsTheRest() async throws {
        let journal = Journal()
        let services = ["status", "sink", "pipeline"].map { Recorder($0, journal) }
        let group = ServiceGroup(services: services, signals: AsyncStream<Int32> { _ in }, deadline: .seconds(20))
        let running = Task { await group.run() }
        try await Self.started(journal, 3)
        services[1].endOnItsOwn.open()
        let (ending, _) = await running.value
        #expect(ending == .serviceEnded("sink"))
        let after = journal.all.drop { $0 != "sink ended" }
        #expect(Array(after) == ["sink ended", "pipeline asked to stop", "pipeline ended", "status asked to stop", "status ended"])
    }

    @Test func aFailingServiceIsNamedWithItsErrorAndTheRestStop() async throws {
        let journal = Journal()
        let failing = Recorder("sink", journal, failure: "the disk is gone")
        let services = [Recorder("status", journal), failing, Recorder("pipeline", journal)]
        let events = Journal()
        let group = ServiceGroup(services: services, signals: AsyncStream<Int32> { _ in }, deadline: .seconds(20), events: { events.add("\($0)") })
        let running = Task { await group.run() }
        try await Self.started(journal, 3)
        failing.endOnItsOwn.open()
        let (ending, error) = await running.value
        #expect(ending == .serviceEnded("sink"))
        #expect(error == "sink: the disk is gone")
        #expect(events.all.contains("\(ServiceGroup.Event.failed(service: "sink", error: "the disk is gone"))"))
        #expect(journal.all.last == "status ended")
    }

    @Test func aSecondSignalCancelsAServiceThatDoesNotStop() async throws {
        let journal = Journal()
        let stubborn = Recorder("sink", journal, stopsAfter: 2)
        let services = [Recorder("status", journal), stubborn, Recorder("pipeline", journal)]
        let (signals, send) = AsyncStream.makeStream(of: Int32.self)
        let events = Journal()
        let group = ServiceGroup(services: services, signals: signals, deadline: .seconds(3600), events: { events.add("\($0)") })
        let running = Task { await group.run() }
        try await Self.started(journal, 3)
        send.yield(SIGTERM)
        try #require(await eventually { journal.all.contains("sink asked to stop") })
        #expect(!journal.all.contains("sink ended"), "it ignores the first ask")
        send.yield(SIGTERM)
        let (ending, _) = await running.value
        #expect(ending == .cancelled)
        #expect(journal.all.contains("sink ended") && journal.all.contains("status ended"))
        #expect(events.all.contains("\(ServiceGroup.Event.cancelling(reason: "a second signal", running: ["status", "sink"]))"))
    }

    @Test func theDeadlineCancelsWhatIsStillRunning() async throws {
        let journal = Journal()
        let stubborn = Recorder("sink", journal, stopsAfter: 2)
        let services = [Recorder("status", journal), stubborn, Recorder("pipeline", journal)]
        let (signals, send) = AsyncStream.makeStream(of: Int32.self)
        // The deadline passes when the test says so.
        let deadlinePassed = ShutdownLatch()
        let group = ServiceGroup(services: services, signals: signals, deadline: .seconds(20), sleep: { _ in await deadlinePassed.wait() })
        let running = Task { await group.run() }
        try await Self.started(journal, 3)
        send.yield(SIGINT)
        try #require(await eventually { journal.all.contains("sink asked to stop") })
        #expect(!journal.all.contains("sink ended"))
        deadlinePassed.open()
        let (ending, _) = await running.value
        #expect(ending == .cancelled)
        #expect(journal.all.contains("sink ended"))
    }
}
