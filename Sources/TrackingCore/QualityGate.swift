import Glibc

/// The first stage of the filter chain: rejects fixes that are wrong, not merely redundant.
///
/// A fix passes when its mode, accuracy, time and coordinates are plausible and it does not imply
/// an impossible jump from the last accepted fix. Outliers do not trap the gate: when
/// `outlierConfirmations` consecutive rejected fixes agree with each other, the new place is
/// accepted. Likewise for time: a fix no later than the last accepted one is stale, but a run of
/// `outlierConfirmations` agreeing fixes before it means the receiver's time was rebased (see the
/// reader's `FixTimeline`), and the gate follows the new time rather than refusing it for good.
///
/// A multipath excursion (an urban canyon: the position jumps 10-25 m for a few seconds, then
/// comes back) implies no impossible speed, but the receiver's velocity, measured from Doppler and
/// untouched by the reflection, does not explain it: a fix farther than `jumpLimit` (growing with
/// the time since, `jumpGrowth` a second) from where the last accepted fix's velocity puts it is
/// an outlier. The excursion ends when a fix is back where the velocity says; one that lasts
/// `maxExcursion` is the receiver's real position after all (it had been wrong), and is followed.
public struct QualityGate: Sendable {
    /// See above: 15 m, above the 6-13 m that a receiver's own wander and noise move a fix from its
    /// dead-reckoned place in one epoch, below the jumps of multipath.
    static let jumpLimit = 15.0
    static let jumpGrowth = 0.5
    static let maxExcursion = 8.0
    /// The longest time between two fixes that counts as the next epoch.
    static let epochGap = 2.0
    public var configuration: FilterConfiguration
    /// The last fix that passed.
    public private(set) var lastAccepted: Location?
    /// Consecutive outliers that agree with each other, oldest first.
    private var candidates: [Location] = []
    /// How often a run of agreeing stale fixes made the gate follow the receiver's new time.
    public private(set) var timelineRestarts = 0
    /// When the current excursion (fixes the velocity does not explain) began.
    private var excursionSince: FixTime?

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
            if isExcursion(from: last, to: location) { return .outlier }
        }
        candidates = []
        lastAccepted = location
        return nil
    }

    /// Whether `location` lies off where `last`'s and its own velocity put it, as a multipath jump
    /// does, and the excursion is still young enough to be one.
    private mutating func isExcursion(from last: Location, to location: Location) -> Bool {
        guard let v0 = Self.velocity(last), let v1 = Self.velocity(location) else {
            excursionSince = nil
            return false
        }
        let seconds = last.time.seconds(to: location.time)
        // After a gap (a tunnel, a receiver restart) the velocities say little about the way
        // between; an excursion begins from the epoch before it.
        guard seconds <= (excursionSince == nil ? Self.epochGap : Self.maxExcursion + Self.epochGap) else {
            excursionSince = nil
            return false
        }
        let plane = LocalPlane(latitude: last.latitude, longitude: last.longitude)
        let p = plane.project(location)
        let (dx, dy) = (p.x - (v0.x + v1.x) / 2 * seconds, p.y - (v0.y + v1.y) / 2 * seconds)
        guard (dx * dx + dy * dy).squareRoot() > Self.jumpLimit + Self.jumpGrowth * seconds else {
            excursionSince = nil
            return false
        }
        let since = excursionSince ?? location.time
        excursionSince = since
        guard since.seconds(to: location.time) < Self.maxExcursion else {
            excursionSince = nil
            return false
        }
        return true
    }

    /// East and north metres a second, from the receiver's speed and course.
    private static func velocity(_ location: Location) -> (x: Double, y: Double)? {
        guard let speed = location.speed else { return nil }
        guard speed > 0.5, let course = location.course else { return (0, 0) }
        let radians = course * .pi / 180
        return (speed * sin(radians), speed * cos(radians))
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
