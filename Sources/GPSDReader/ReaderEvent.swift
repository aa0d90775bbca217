import TrackingCore

/// What the reader hands downstream: positions, and the state changes an operator wants to hear about.
///
/// State events are sent once per change, never once per attempt, so a log of them stays short
/// while gpsd is down for hours.
public enum ReaderEvent: Sendable, Equatable {
    /// A merged, cleaned position for one fix time.
    case location(Location)
    /// Connected to gpsd and watching.
    case connected(GPSDEndpoint)
    /// gpsd cannot be reached; the reader keeps retrying with backoff up to `maxDelay`.
    case unreachable(GPSDError, retryingEvery: Duration)
    /// The connection to gpsd ended (gpsd stopped or restarted); the reader reconnects.
    case disconnected(GPSDError)
    /// gpsd sent no TPV for `seconds`; the reader reconnects.
    case noData(after: Duration)
    /// gpsd sends TPVs again after a `noData` report.
    case dataResumed
    /// A receiver came online in gpsd.
    case deviceActivated(path: String)
    /// A receiver went away (unplugged, or gpsd gave up on it).
    case deviceDeactivated(path: String)
    /// The first fix after start or after a loss.
    case fixAcquired(FixMode)
    /// The receiver reports no fix any more.
    case fixLost
    /// gpsd itself reported an error.
    case gpsdError(String)
    /// gpsd sent a line longer than libgps can read (about 20 KB); the reader skipped it by
    /// reconnecting at once. Sent the first time; later ones are counted in the statistics.
    case oversizedLine
    /// The receiver's fix times left its timeline, came back, or kept to a new one.
    case timeline(EpochAssembler.TimelineNotice)

    /// Whether the fixes stopped coming with this event (the receiver lost its fix or went away,
    /// gpsd fell silent or went away): what the filter still holds back is decided now, so the
    /// tracker has the last place.
    public var stopsTheFixes: Bool {
        switch self {
        case .deviceDeactivated, .noData, .disconnected, .fixLost: true
        default: false
        }
    }
}
