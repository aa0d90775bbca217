/// Why the quality gate turned a fix away.
public enum RejectionReason: String, Sendable, CaseIterable, Hashable, CustomStringConvertible {
    /// Fix mode below `min-mode`.
    case mode
    /// Horizontal accuracy worse than `max-accuracy`.
    case accuracy
    /// Fix time not after the last accepted fix (a duplicate, or time going backwards).
    case stale
    /// Fix time too far ahead of a synchronized system clock.
    case future
    /// Fix time before this build's release (a GPS week-rollover bug).
    case tooOld = "too-old"
    /// Latitude/longitude out of range, or exactly (0, 0).
    case coordinates
    /// The implied speed from the last accepted fix exceeds `max-speed`.
    case outlier

    public var description: String { rawValue }
}

/// Why a fix was kept.
public enum KeepTrigger: String, Sendable, CaseIterable, Hashable, CustomStringConvertible {
    /// The first fix after start.
    case first
    /// `max-interval` (moving) or `stationary-interval` (stopped) has passed.
    case heartbeat
    /// The path turned away from the straight line: the fix before the turn.
    case deviation
    /// The vehicle stopped: the stop point.
    case stop
    /// The vehicle set off: the last fix before it moved.
    case departure
    /// `min-distance` (optional trigger).
    case distance
    /// `min-angle` (optional trigger).
    case angle
    /// The last fix before the stream ended while moving, so the track reaches where it stopped.
    case final

    public var description: String { rawValue }

    /// A point for the path's shape (a corner, or the optional distance and angle triggers), not
    /// for the vehicle's place (a stop, a heartbeat, the first, a departure, the end).
    var isCorner: Bool { self == .deviation || self == .distance || self == .angle }
}

/// A location the filter kept, with the trigger that kept it.
public struct KeptLocation: Sendable, Equatable {
    public var location: Location
    public var trigger: KeepTrigger
    public init(location: Location, trigger: KeepTrigger) {
        self.location = location
        self.trigger = trigger
    }
}

/// The system clock as the quality gate sees it.
public struct ClockReading: Sendable, Equatable {
    public var now: FixTime
    /// Whether the clock is synchronized (NTP, PTP, or a GPS-disciplined source); only then is
    /// "in the future" judged.
    public var synchronized: Bool
    public init(now: FixTime, synchronized: Bool) {
        self.now = now
        self.synchronized = synchronized
    }
}
