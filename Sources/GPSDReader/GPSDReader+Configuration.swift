extension GPSDReader {
    /// How the reader connects and when it gives up on a silent gpsd.
    public struct Configuration: Sendable {
        public var endpoint: GPSDEndpoint
        /// No TPV for this long means "no data from gpsd": reconnect.
        public var noDataTimeout: Duration
        public var initialBackoff: Duration
        public var maxBackoff: Duration
        /// How long one wait for data lasts at most: how often a quiet epoch is flushed and the
        /// loop shows the watchdog it is alive. `stop()` cuts a wait short. Each wait that ends
        /// without data is a wake-up a small box pays for, so it is not short.
        public var pollInterval: Duration
        /// How long the reader rests after reading the start of a burst, so that the rest of it
        /// gathers and is read at one go. A receiver's epoch comes as several messages (TPV, GST,
        /// ATT, SKY, ...) written one by one as its sentences arrive; waking for each costs a small
        /// box more than decoding it. The first message of a burst is read at once (the TPV that
        /// starts an epoch completes the one before); a later one waits at most this long. Rests
        /// are taken only while they pay (`BurstPacing`). Zero reads each message as it comes.
        public var burstWindow: Duration
        /// Events buffered for a slow consumer before the oldest are dropped.
        public var bufferSize: Int
        /// See `EpochAssembler`.
        public var headingMaxAge: Duration
        public var epochQuietTime: Duration
        /// Whether the receiver's GST statistics give a location's accuracy (`AccuracySource`).
        public var accuracySource: AccuracySource

        public init(
            endpoint: GPSDEndpoint = .standard,
            noDataTimeout: Duration = .seconds(10),
            initialBackoff: Duration = .seconds(1),
            maxBackoff: Duration = .seconds(30),
            pollInterval: Duration = .seconds(1),
            burstWindow: Duration = .milliseconds(100),
            bufferSize: Int = 4096,
            headingMaxAge: Duration = .seconds(1),
            epochQuietTime: Duration = .milliseconds(1500),
            accuracySource: AccuracySource = .gst
        ) {
            self.endpoint = endpoint
            self.noDataTimeout = noDataTimeout
            self.initialBackoff = initialBackoff
            self.maxBackoff = maxBackoff
            self.pollInterval = pollInterval
            self.burstWindow = burstWindow
            self.bufferSize = bufferSize
            self.headingMaxAge = headingMaxAge
            self.epochQuietTime = epochQuietTime
            self.accuracySource = accuracySource
        }
    }
}
