/// Counters of everything the reader read, used, counted and skipped.
public struct ReaderStatistics: Sendable, Equatable {
    /// Complete messages read from gpsd.
    public var messages = 0
    /// Times the reader woke to new data after waiting for it: each read a burst of messages.
    public var bursts = 0
    /// Rests after the start of a burst while the rest of it gathered: a wake-up each.
    public var rests = 0
    /// TPV reports.
    public var tpvReports = 0
    /// ATT reports.
    public var attitudeReports = 0
    /// ATT lines gpsd wrote as invalid JSON (the heading was read from the raw line when present).
    public var malformedAttitude = 0
    /// GST reports that carried the receiver's own error estimate.
    public var errorEstimateReports = 0
    /// Locations emitted (one per fix time).
    public var locations = 0
    /// Lines libgps could not parse or gpstrackd could not classify.
    public var unparsable = 0
    /// Sessions opened after the first.
    public var reconnects = 0
    /// Lines from gpsd too long for libgps (each cost a reconnect).
    public var oversizedLines = 0
    /// Events dropped because the consumer fell behind and the buffer was full.
    public var droppedEvents = 0
    /// The epoch assembler's counters (no fix, repeated or backwards times, ...).
    public var epochs = EpochAssembler.Counters()

    public init() {}

    /// `key=value` pairs for a one-line summary.
    public var summary: String {
        "messages=\(messages) bursts=\(bursts) rests=\(rests) tpv=\(tpvReports) att=\(attitudeReports) malformed_att=\(malformedAttitude) gst=\(errorEstimateReports) locations=\(locations) "
            + "no_fix=\(epochs.noFix) missing_time=\(epochs.missingTime) invalid_position=\(epochs.invalidPosition) "
            + "repeated_time=\(epochs.repeatedTime) backwards_time=\(epochs.backwardsTime) "
            + "time_glitches=\(epochs.timeGlitches) timeline_rebases=\(epochs.timelineRebases) "
            + "headings=\(epochs.headingsAttached) error_estimates=\(epochs.errorEstimatesAttached) unparsable=\(unparsable) reconnects=\(reconnects) oversized_lines=\(oversizedLines) dropped=\(droppedEvents)"
    }
}
