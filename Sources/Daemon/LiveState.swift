import GPSDReader
import Synchronization
import TrackingCore

/// What status shows of the pipeline: the connection to gpsd (from the reader's events), and the
/// newest fix and the filter's counters, read from the filter stage when asked.
final class LiveState: Sendable {
    struct Snapshot {
        var connected = false
        var lastFix: Location?
        var filter = FilterChain.Counters()
    }

    private let connected = Atomic<Bool>(false)
    private let stage: FilterStage

    init(stage: FilterStage) { self.stage = stage }

    var snapshot: Snapshot {
        let progress = stage.progress
        return Snapshot(connected: connected.load(ordering: .acquiring), lastFix: progress.lastFix, filter: progress.counters)
    }

    func record(_ event: ReaderEvent) {
        switch event {
        case .connected, .dataResumed: connected.store(true, ordering: .releasing)
        case .disconnected, .unreachable: connected.store(false, ordering: .releasing)
        default: break
        }
    }
}
