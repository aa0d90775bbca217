import AWSLocation
import GPSDReader
import TrackingCore

/// Everything the daemon is configured with, validated. Built by `DaemonSettings` from the
/// built-in defaults, the configuration file, `GPSTRACKD_*` variables and `--key value` flags,
/// in that order of increasing precedence.
public struct DaemonConfiguration: Sendable, Equatable {
    /// Where kept positions go.
    public enum Sink: String, Sendable, Equatable {
        /// The Amazon Location tracker.
        case awsLocation = "aws-location"
        /// JSON lines in a file under the state directory (the default without a tracker).
        case file
    }

    public var gpsd = GPSDEndpoint.standard
    public var noDataTimeout: Double = 10
    /// Seconds the reader rests after the first message of a burst before reading the rest together.
    public var burstWindow = 0.1
    /// Where a fix's horizontal accuracy comes from: gpsd's figure or the receiver's GST.
    public var accuracySource = AccuracySource.gst
    public var deviceID: String
    public var stateDirectory: String
    public var sink: Sink = .file
    public var region: String?
    public var tracker: String?
    public var endpoint: ServiceEndpoint?
    public var identityPoolID: String?
    public var profile: String?
    public var accessKeyID: String?
    public var secretAccessKey: String?
    public var filePath: String?
    public var fileMaxBytes: Int64 = 10 * 1_048_576
    public var filter = FilterConfiguration()
    public var batchSize = 10
    public var uploadInterval: Double = 5
    public var maxInFlight = 4
    public var maxRequestRate: Double = 10
    /// This box's part of the account's request quota, requests/s (`quota-share`); 0: none.
    public var quotaShare: Double = 0
    /// Bytes a UTC day the uploader may put on the wire (a metered SIM); 0: no budget.
    public var dataBudget = 0
    /// Seconds of silence after which an idle connection to the tracker gets a keepalive (under
    /// the path's idle timeout); 0: none.
    public var connectionKeepalive: Double = 45
    public var positionProperties: [PositionProperty] = [.speed, .course]
    public var spoolMaxRows = 2_000_000
    public var spoolMaxBytes: Int64?
    public var logLevel: LogLevel = .info
    public var logFormat: LogFormat?
    public var metricsFile: String?
    /// `tracker-filtering`: the tracker's PositionFiltering, or nil (`auto`) to ask it with
    /// DescribeTracker.
    public var trackerFiltering: TrackerFiltering?

    public init(deviceID: String, stateDirectory: String) {
        self.deviceID = deviceID
        self.stateDirectory = stateDirectory
    }

    /// The file sink's path: `file-path`, else `<state-dir>/positions.jsonl`.
    public var effectiveFilePath: String { filePath ?? stateDirectory + "/positions.jsonl" }
}
