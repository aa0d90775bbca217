/// The first stage of the filter chain: rejects fixes that are wrong, not merely redundant.
///
/// A fix passes when its mode, accuracy, time and coordinates are plausible and it does not imply
/// an impossible jump from the last accepted fix. Outliers do not trap the gate: when
/// `outlierConfirmations` consecutive rejected fixes agree with each other, the new place is
/// accepted.
public struct QualityGate: Sendable {
    public var configuration: FilterConfiguration
    /// The last fix that passed.
    public private(set) var lastAccepted: Location?
    /// Consecutive outliers that agree with each other, oldest first.
    private var candidates: [Location] = []

    public init(configuration: FilterConfiguration) {
        self.configuration = configuration
    }

    /// `nil` when `location` passes (and becomes the last accepted fix), else the reason it failed.
    public mutating func check(_ location: Location, clock: ClockReading) -> RejectionReason? {
        if let reason = staticCheck(location, clock: clock) { return reason }
        if let last = lastAccepted, location.time <= last.time { return .stale }
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
