import GPSDReader
import Spool
import Synchronization
import TrackingCore

/// Reader → filter → spool. Fixes go from the reader's thread through the filter straight to the
/// spool's queue (the filter stage's `onKept`), and so do the events that stop the fixes (a
/// receiver gone decides what the tracker's spacing held back), in order with them (see
/// `DaemonParts`); the reader's other events come here, to the log and to what status shows.
///
/// Shutting down stops reading; the position held back for the track's shape is kept and the
/// spool's queue is flushed before `run()` returns, so the sink, stopped next, sees all of it.
final class PipelineService: Service {
    let name = "pipeline"
    private let reader: GPSDReader
    private let stage: FilterStage
    private let spool: Spool
    private let live: LiveState
    private let logger: Logger
    private let onReading: @Sendable () -> Void

    /// The reader's loop goes round at least every second or two (a wait for data, a backoff
    /// pause): 15 s without is a stuck thread.
    static let promise = Duration.seconds(15)

    /// `onReading` is called once the reader has started (the daemon says READY=1 then).
    init(reader: GPSDReader, stage: FilterStage, spool: Spool, live: LiveState, logger: Logger,
         onReading: @escaping @Sendable () -> Void = {}) {
        self.reader = reader
        self.stage = stage
        self.spool = spool
        self.live = live
        self.logger = logger
        self.onReading = onReading
    }

    func run() async {
        reader.start()
        onReading()
        for await event in reader.events {
            live.record(event)
            ReaderEventLog.log(event, to: logger)
        }
        stage.finish()
        await spool.flush()
        live.record(.disconnected(.connectionLost(endpoint: reader.configuration.endpoint, reason: "stopped")))
    }

    func shutDownGracefully() { reader.stop() }

    var liveness: Liveness? { Liveness(lastSign: reader.lastLoop, promise: Self.promise) }
}
