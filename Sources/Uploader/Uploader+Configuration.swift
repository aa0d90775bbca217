import AWSLocation
import TrackingCore

extension Uploader {
    public struct Configuration: Sendable, Equatable {
        public var tracker: String
        public var deviceID: String
        public var batchSize = 10
        public var uploadInterval: Double = 5
        public var maxInFlight = 4
        public var maxRequestRate: Double = 10
        /// This device's part of the account's request quota (`quota-share`), requests/s; 0:
        /// none, the rate adapts to throttling (see `RequestRate`).
        public var quotaShare: Double = 0
        public var properties: [PositionProperty] = [.speed, .course]
        public var retry = RetryPolicy()
        /// Seconds between attempts while misconfigured.
        public var misconfiguredRetry: Double = 60
        /// Seconds between backlog progress events.
        public var progressInterval: Double = 30
        /// A backlog worth reporting: this many positions queued.
        public var backlogThreshold = 100
        public var stopDeadline: Double = 10
        /// The tracker's `PositionFiltering`: a position it would not store is not sent (it is
        /// acknowledged as withheld), so that nothing is paid for and lost.
        public var trackerFiltering: TrackerFiltering = .none
        /// Whether `trackerFiltering` is the tracker's own (configured, answered, remembered): only
        /// then are queued positions withheld for it, never on a guess.
        public var trackerFilteringKnown = true
        /// Bytes a day the uploader may put on the wire (`DataBudget`); 0: no budget.
        public var dataBudget = 0

        public init(tracker: String, deviceID: String) {
            self.tracker = tracker
            self.deviceID = deviceID
        }
    }

    /// Counters for status and tests.
    public struct Statistics: Sendable, Equatable {
        public var uploaded = 0
        public var requests = 0
        public var failedRequests = 0
        public var deadLettered = 0
        /// Positions not sent because the tracker's filtering would not have stored them.
        public var withheld = 0
        public var lastSuccess: FixTime?
        public var lastError: String?
        /// The newest position the tracker accepted (by fix time): where its filtering stands.
        public var lastStored: Location?
        /// Requests the tracker answered with throttling (the account's quota was full).
        public var throttledRequests = 0
        /// The requests a second the uploader allows itself now (`RequestRate`).
        public var requestRate: Double = 0
        /// The most it may reach: `max-request-rate` with headroom, or what `quota-share` gives.
        public var requestRateCeiling: Double = 0
        /// `quota-share` while in force: nil without one, or once given up (`RequestRate.overrun`).
        public var quotaShare: Double?
        /// Bytes on the wire this UTC day (`DataBudget`), requests, answers and TLS handshakes.
        public var bytesToday = 0
    }
}
