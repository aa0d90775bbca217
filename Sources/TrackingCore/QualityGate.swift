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
/// an outlier. The excursion ends when a fix is back, within a receiver's noise, where the
/// velocities of the fixes since put the vehicle; one that lasts `maxExcursion` is the receiver's
/// real position after all (it had been wrong), and is followed.
public struct QualityGate: Sendable {
    /// See above: 15 m, above the 6-13 m that a receiver's own wander and noise move a fix from its
    /// dead-reckoned place in one epoch, below the jumps of multipath.
    static let jumpLimit = 15.0
    static let jumpGrowth = 0.5
    static let maxExcursion = 8.0
    /// The share of `jumpLimit` within which a fix ends an excursion (9 m): back within a
    /// receiver's noise of the road, not merely nearer than the jump that began it.
    static let returnShare = 0.6
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
    /// Where the velocities put the vehicle at the last fix of the excursion, if one is going on.
    private var reckoned: Reckoned?

    /// A place reached by dead reckoning, on the plane about the last accepted fix.
    private struct Reckoned {
        var time: FixTime
        var x: Double
        var y: Double
        var velocity: (x: Double, y: Double)
    }

    public init(configuration: FilterConfiguration) {
        self.configuration = configuration
    }

    /// `nil` when `location` passes (and becomes the last accepted fix), else the reason it failed.
    public mutating func check(_ location: Location, clock: ClockReading) -> RejectionReason? {
        if let reason = staticCheck(location, clock: clock) { return reason }
        if let last = lastAccepted, location.time <= last.time {
            guard confirmsNewPlace(location) else { return .stale }
            accept(location)
            timelineRestarts += 1
            return nil
        }
        if let last = lastAccepted {
            let seconds = last.time.seconds(to: location.time)
            let speed = Geodesy.distance(last, location) / seconds
            if speed > configuration.maxSpeed {
                if confirmsNewPlace(location) {
                    accept(location)
                    return nil
                }
                // A jump no vehicle drives (at 10 Hz, a multipath jump's first fix) begins an
                // excursion as one the velocity does not explain does.
                if excursionSince == nil { excursionSince = location.time }
                reckoned = reckoning(from: last, to: location)
                return .outlier
            }
            if isExcursion(from: last, to: location) { return .outlier }
        }
        accept(location)
        return nil
    }

    /// `location` passes: it is the last accepted fix, and no excursion or run of outliers goes on.
    private mutating func accept(_ location: Location) {
        candidates = []
        excursionSince = nil
        reckoned = nil
        lastAccepted = location
    }

    /// Whether `location` lies off where the receiver's velocities since `last` put it, as a
    /// multipath jump does, and the excursion is still young enough to be one. An excursion
    /// begins beyond `jumpLimit` and ends within `returnShare` of it: a reflection that shrinks
    /// below the jump that began it is still one (a random road of our own at 10 Hz: 4 s of fixes
    /// 13-16 m north of the road, taken for it, and a kept point 15.8 m off the true path).
    private mutating func isExcursion(from last: Location, to location: Location) -> Bool {
        let seconds = last.time.seconds(to: location.time)
        // After a gap (a tunnel, a receiver restart) the velocities say little about the way
        // between; an excursion begins from the epoch before it. A fix that is no excursion is
        // accepted, which ends the one going on (`accept`).
        guard seconds <= (excursionSince == nil ? Self.epochGap : Self.maxExcursion + Self.epochGap),
              let place = reckoning(from: last, to: location) else { return false }
        let p = LocalPlane(latitude: last.latitude, longitude: last.longitude).project(location)
        let (dx, dy) = (p.x - place.x, p.y - place.y)
        let limit = excursionSince == nil ? Self.jumpLimit : Self.jumpLimit * Self.returnShare
        guard (dx * dx + dy * dy).squareRoot() > limit + Self.jumpGrowth * seconds else { return false }
        let since = excursionSince ?? location.time
        guard since.seconds(to: location.time) < Self.maxExcursion else { return false }
        excursionSince = since
        reckoned = place
        return true
    }

    /// Where the receiver's velocities put `location`'s time, on the plane about `last`: from
    /// `last` or from the place reckoned for the fix before, each step at the mean of its two
    /// ends' velocities. The velocities come from the Doppler shift, which a reflection leaves
    /// alone, so the reckoning follows a turn taken during an excursion (from `last` alone, a
    /// ramp's 90 degrees in 6 s put the road 17 m from where it was).
    private func reckoning(from last: Location, to location: Location) -> Reckoned? {
        guard let v1 = Self.velocity(location) else { return nil }
        let from: Reckoned
        if let reckoned {
            from = reckoned
        } else {
            guard let v0 = Self.velocity(last) else { return nil }
            from = Reckoned(time: last.time, x: 0, y: 0, velocity: v0)
        }
        let step = from.time.seconds(to: location.time)
        return Reckoned(time: location.time, x: from.x + (from.velocity.x + v1.x) / 2 * step,
                        y: from.y + (from.velocity.y + v1.y) / 2 * step, velocity: v1)
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
