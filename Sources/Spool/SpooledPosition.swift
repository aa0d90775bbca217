import TrackingCore

/// A position in the spool: its row id (the handle for `ack`, `reject` and `release`) and the location.
public struct SpooledPosition: Sendable, Equatable {
    public var id: Int64
    public var location: Location
    /// The filter trigger that kept it, when known.
    public var kept: KeepTrigger?

    public init(id: Int64, location: Location, kept: KeepTrigger?) {
        self.id = id
        self.location = location
        self.kept = kept
    }
}

/// A position the tracker refused for good, kept for inspection.
public struct DeadLetter: Sendable, Equatable {
    public var position: SpooledPosition
    /// The tracker's error code (e.g. `ValidationError`) and message.
    public var code: String
    public var message: String
    public var rejectedAt: FixTime
}
