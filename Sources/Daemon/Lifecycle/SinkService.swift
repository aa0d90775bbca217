import Uploader

extension Uploader {
    /// Takes the settings a reload may change while running.
    func apply(_ configuration: DaemonConfiguration) {
        var settings = self.configuration
        settings.take(configuration)
        update(settings)
    }
}

extension Uploader.Configuration {
    /// The daemon's upload settings (at start and on a reload).
    mutating func take(_ c: DaemonConfiguration) {
        batchSize = c.batchSize
        uploadInterval = c.uploadInterval
        maxInFlight = c.maxInFlight
        maxRequestRate = c.maxRequestRate
        quotaShare = c.quotaShare
        dataBudget = c.dataBudget
        properties = c.positionProperties
    }
}


/// The spool's consumer: the uploader, delivering to the tracker or the file (see `Destination`),
/// until shut down.
///
/// Under `tracker-filtering auto` the first batch waits a moment for the tracker's mode (never
/// more than `answerWait`), so that what is sent then already obeys it; reading gpsd and READY=1
/// do not wait.
final class SinkService: Service {
    let name = "sink"
    let sink: Uploader
    private let filtering: TrackerFilteringService?
    private let answerWait: Duration

    init(sink: Uploader, filtering: TrackerFilteringService? = nil, answerWait: Duration = .seconds(3)) {
        self.sink = sink
        self.filtering = filtering
        self.answerWait = answerWait
    }

    func run() async {
        await filtering?.waitForAnswer(upTo: answerWait)
        await sink.run()
    }

    func shutDownGracefully() { sink.stop() }

    var liveness: Liveness? { Liveness(lastSign: sink.lastLoop, longestWait: sink.longestWait) }
}
