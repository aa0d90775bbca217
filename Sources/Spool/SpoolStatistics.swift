import TrackingCore

/// The state of the spool at a glance.
public struct SpoolStatistics: Sendable, Equatable {
    /// Positions waiting for upload (including those in flight).
    public var queued: Int
    /// Positions handed out by `peek` and not yet acknowledged, rejected or released.
    public var inFlight: Int
    /// Fix times of the oldest and newest queued positions.
    public var oldest: FixTime?
    public var newest: FixTime?
    /// Positions the tracker refused for good.
    public var deadLetters: Int
    /// Bytes on disk: the database and its write-ahead log.
    public var fileBytes: Int64
    /// Positions dropped to stay within the caps, since the spool was created.
    public var evictions: Int64
    /// Positions waiting in memory for room on a full disk (also counted in `queued`).
    public var heldInMemory: Int = 0
    /// Positions that found no room on disk when they came, since the spool opened.
    public var storeFailures: Int64 = 0
}
