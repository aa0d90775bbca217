/// The first stage of the filter chain: rejects fixes that are wrong, not merely redundant.
///
/// A fix passes when its mode, accuracy, time and coordinates are plausible and it does not imply
/// an impossible jump from the last accepted fix. Outliers do not trap the gate: when
/// `outlierConfirmations` consecutive rejected fixes agree with each other, the new place is
/// accepted. Likewise for time: a fix no later than the last accepted one is stale, but a run of
/// `outlierConfirmations` agreeing fixes before it means the receiver's time was rebased (see the
/// reader's `FixTimeline`), and the gate follows the new time rather than refusing it for good.
public struct QualityGate: Sendable {
    public var configuration: FilterConfiguration
    /// The last fix that passed.
    public private(set) var lastAccepted: Location?
    /// Consecutive outliers that agree with each other, oldest first.
    private var candidates: [Location] = []
    /// How often a run of agreeing stale fixes made the gate follow the receiver's new time.
    public private(set) var timelineRestarts = 0

    public init(configuration: FilterConfiguration) {
        self.configuration = configuration
    }

    /// `nil` when `location` passes (and becomes the last accepted fix), else the reason it failed.
    public mutating func check(_ location: Location, clock: ClockReading) -> RejectionReason? {
        if let reason = staticCheck(location, clock: clock) { return reason }
        if let last = lastAccepted, location.time <= last.time {
            guard confirmsNewPlace(location) else { return .stale }
            candidates = []
            lastAccepted = location
            timelineRestarts += 1
            return nil
        }
        if let last = lastAccepted {
            let seconds = last.time.seconds(to: location.time)
            let speed = Geodesy.distance(last, location) / seconds
            if speed > configuration.maxSpeed {
                if confirmsNewPlace(location) {
                    candidates = []
                    lastAccepted = location
                    return nil
                }
                return .outlier
            }
        }
        candidates = []
        lastAccepted = location
        return nil
    }

    /// The checks that need no history.
    private func staticCheck(_ location: Location, clock: ClockReading) -> RejectionReason? {
        if location.mode < configuration.minMode { return .mode }
        if let limit = configuration.maxAccuracy, let accuracy = location.horizontalAccuracy, accuracy > limit {
            return .accuracy
        }
        if location.time < configuration.earliestPlausibleTime { return .tooOld }
        if clock.synchronized, clock.now.seconds(to: location.time) > configuration.maxFuture { return .future }
        if !(-90.0...90.0).contains(location.latitude) || !(-180.0...180.0).contains(location.longitude)
            || (location.latitude == 0 && location.longitude == 0) {
            return .coordinates
        }
        return nil
    }

    /// Records an outlier; true when it completes a run of agreeing outliers.
    private mutating func confirmsNewPlace(_ location: Location) -> Bool {
        if let previous = candidates.last {
            let seconds = previous.time.seconds(to: location.time)
            let agrees = seconds > 0 && Geodesy.distance(previous, location) / seconds <= configuration.maxSpeed
            if !agrees { candidates = [] }
        }
        candidates.append(location)
        return candidates.count >= max(1, configuration.outlierConfirmations)
    }
}
