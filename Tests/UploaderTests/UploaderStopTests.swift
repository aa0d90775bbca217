import Foundation
import Spool
import Synchronization
import Testing
import TestSupport
import TrackingCore
import Uploader

/// A destination that never answers until its caller gives up.
private final class SilentDestination: Destination {
    let calls = Atomic<Int>(0)
    let ended = Atomic<Int>(0)
    var name: String { "a silent service" }

    func limits(_ configuration: Uploader.Configuration) -> DestinationLimits {
        DestinationLimits(batchSize: 10, maxInFlight: 4, rateLimited: false, drainsOnStop: false, waitsFromFixTime: false)
    }

    func deliver(_ batch: [SpooledPosition], _ configuration: Uploader.Configuration) async throws(DeliveryFailure) -> [PositionOutcome] {
        calls.add(1, ordering: .relaxed)
        defer { ended.add(1, ordering: .relaxed) }
        do {
            try await Task.sleep(for: .seconds(3600))
        } catch {
            throw DeliveryFailure("cancelled", disposition: .retry(after: nil))
        }
        return batch.map { _ in .stored }
    }
}

@Suite struct UploaderStopTests {
    @Test func aStopPastItsDeadlineCancelsTheRequestsInFlightAndRunReturnsAfterThem() async throws {
        let directory = FileDestinationTests.directory()
        let spool = try await Spool.open(.init(directory: directory))
        for n in 0..<20 { try await spool.append(FileDestinationTests.location(n)) }
        var configuration = FileDestinationTests.configuration(interval: 1)
        configuration.stopDeadline = 0.2
        let destination = SilentDestination()
        let uploader = Uploader(configuration: configuration, spool: spool, destination: destination)
        let running = Task { await uploader.run() }
        #expect(await eventually { destination.calls.load(ordering: .relaxed) == 2 }, "two full batches in flight")
        uploader.stop()
        await running.value
        // Nothing outlives run(): both requests ended before it returned, their rows back in the queue.
        #expect(destination.ended.load(ordering: .relaxed) == 2)
        #expect(spool.unsent == 20)
        #expect(try await spool.statistics().queued == 20)
        #expect(uploader.statistics.failedRequests == 0, "an abandoned request is not the destination's failure")
        #expect(uploader.statistics.uploaded == 0)
    }
}
