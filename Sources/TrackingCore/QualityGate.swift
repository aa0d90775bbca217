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
///
/// A reflection can also move a fix by less than `jumpLimit` (12-14 m), which a receiver's noise
/// also does now and then, so one such fix proves nothing: the gate holds it (a suspect), and the
/// fixes that follow it, until a fix says which it was. A fix back where the velocities since the
/// fix before the suspect put the vehicle, and away from where they put the held ones, ends an
/// excursion: the held fixes are rejected (`Verdict.recalled`). Otherwise, `maxExcursion` after the
/// suspect, they pass. Without it a random road of our own kept a point 17 m off the true path,
/// and another took 3 s of reflections for the road and then 7 s of the road for an excursion.
public struct QualityGate: Sendable {
    /// What the gate decided on one fix, and on the fixes it held before it.
    public struct Verdict: Sendable, Equatable {
        /// Held fixes that pass now, in time order (almost always none: no array is made then).
        public var released: [Location] = []
        /// Whether this fix passes now (neither held nor rejected), after the released ones.
        public var passes = false
        /// Why this fix was rejected, if it was.
        public var rejection: RejectionReason?
        /// Held fixes this one showed to be an excursion (outliers), in time order.
        public var recalled: [Location] = []
    }

    /// See above: 15 m, above the 6-13 m that a receiver's own wander and noise move a fix from its
    /// dead-reckoned place in one epoch, below the jumps of multipath.
    public static let jumpLimit = 15.0
    static let jumpGrowth = 0.5
    public static let maxExcursion = 8.0
    /// The share of `jumpLimit` within which a fix ends an excursion (9 m): back within a
    /// receiver's noise of the road, not merely nearer than the jump that began it.
    static let returnShare = 0.6
    /// The most a step may turn (degrees) for a fix off its reckoning to be held as a suspect.
    static let steadyTurn = 30.0
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
    /// The suspect and the fixes after it, while the gate waits to tell an excursion (see above).
    private var held: [Location] = []
    /// The last fix accepted before the held ones, and where the velocities since put the vehicle
    /// at the newest held fix, on the plane about it.
    private var anchor: (fix: Location, place: Reckoned)?

    /// A place reached by dead reckoning, on the plane about the fix it was reckoned from.
    private struct Reckoned {
        var time: FixTime
        var x: Double
        var y: Double
        var velocity: (x: Double, y: Double)
    }

    public init(configuration: FilterConfiguration) {
        self.configuration = configuration
    }

    /// Fixes the gate holds (a suspect and those after it): memory it holds, bounded by time.
    public var heldFixes: Int { held.count }

    /// Judges one fix; the verdict may also release or recall fixes held before it.
    public mutating func judge(_ location: Location, clock: ClockReading) -> Verdict {
        if let reason = staticCheck(location, clock: clock) {
            return Verdict(released: releaseIfOverdue(at: location.time), rejection: reason)
        }
        if let last = lastAccepted, location.time <= last.time {
            guard confirmsNewPlace(location) else { return Verdict(rejection: .stale) }
            timelineRestarts += 1
            return Verdict(released: release(), passes: accept(location))
        }
        // An offset that lasted `maxExcursion` passes before this fix is judged, whatever it is.
        let released = releaseIfOverdue(at: location.time)
        if comesBack(location) {
            let recalled = held
            held = []
            anchor = nil
            return Verdict(passes: accept(location), recalled: recalled)
        }
        if let last = lastAccepted {
            let seconds = last.time.seconds(to: location.time)
            let speed = Geodesy.distance(last, location) / seconds
            if speed > configuration.maxSpeed {
                let place = Self.step(from: reckoned ?? Self.start(at: last), to: location)
                if !isReflection(location, at: place, from: last), confirmsNewPlace(location) {
                    return Verdict(released: released + release(), passes: accept(location))
                }
                // A jump no vehicle drives (at 10 Hz, a multipath jump's first fix) begins an
                // excursion as one the velocity does not explain does.
                if excursionSince == nil { excursionSince = location.time }
                reckoned = place
                return Verdict(released: released, rejection: .outlier)
            }
            if isExcursion(from: last, to: location) { return Verdict(released: released, rejection: .outlier) }
        }
        return Verdict(released: released, passes: accept(location))
    }

    /// The fixes the gate holds, passed now (the fixes stopped coming, or the stream ended).
    public mutating func release() -> [Location] {
        defer {
            held = []
            anchor = nil
        }
        return held
    }

    /// `location` passes: it is the last accepted fix, and no excursion or run of outliers goes
    /// on. Returned to pass now, unless the gate holds fixes, which it then joins.
    private mutating func accept(_ location: Location) -> Bool {
        candidates = []
        excursionSince = nil
        reckoned = nil
        lastAccepted = location
        guard let (fix, place) = anchor else { return true }
        held.append(location)
        anchor = (fix, Self.step(from: place, to: location) ?? place)
        return false
    }

    /// The held fixes, passed when the first is `maxExcursion` old: an offset that lasts is the
    /// receiver's word, as for an excursion.
    private mutating func releaseIfOverdue(at time: FixTime) -> [Location] {
        guard let first = held.first, first.time.seconds(to: time) >= Self.maxExcursion else { return [] }
        return release()
    }

    /// Whether the gate holds fixes and `location` is back within a receiver's noise of where the
    /// velocities since the anchor put the vehicle, and not of where they put the held fixes, or
    /// `nearerBy` times nearer the first place than the second. The noise grows with the time
    /// since, and after seconds of fixes rejected for their accuracy it spans a suspect's offset:
    /// a fix 4 m from the road's place was within the noise of the suspect's way too (10.9 m,
    /// against 11.4 m), and the suspect, 13 m off the road 0.2 s after a kept point, passed, a
    /// moving fix 13.2 m from the kept track (a random road of our own at 5 Hz, recorded only for
    /// the check).
    private func comesBack(_ location: Location) -> Bool {
        guard let (fix, place) = anchor, let newest = held.last,
              let road = Self.step(from: place, to: location),
              let aside = Self.step(from: Self.start(at: newest), to: location) else { return false }
        let back = Self.distance(of: location, from: road, about: fix)
        let away = Self.distance(of: location, from: aside, about: newest)
        return back <= Self.noise(over: fix.time.seconds(to: location.time))
            && (away > Self.noise(over: newest.time.seconds(to: location.time)) || back * Self.nearerBy < away)
    }

    /// How many times nearer where the velocities put the road than where they put the held
    /// fixes a fix must be to end an excursion both places are within a receiver's noise of.
    static let nearerBy = 2.0

    /// How far a fix a receiver's noise and wander alone move from its dead-reckoned place, at
    /// most, `seconds` after the fix reckoned from.
    private static func noise(over seconds: Double) -> Double {
        jumpLimit * returnShare + jumpGrowth * seconds
    }

    /// Whether `location` lies off where the receiver's velocities since `last` put it, as a
    /// multipath jump does, and the excursion is still young enough to be one. An excursion
    /// begins beyond `jumpLimit` and ends within `returnShare` of it: a reflection that shrinks
    /// below the jump that began it is still one (a random road of our own at 10 Hz: 4 s of fixes
    /// 13-16 m north of the road, taken for it, and a kept point 15.8 m off the true path). A fix
    /// between a receiver's noise and a jump, with no excursion going on, is a suspect: the gate
    /// holds it (`anchor`).
    private mutating func isExcursion(from last: Location, to location: Location) -> Bool {
        let seconds = last.time.seconds(to: location.time)
        // After a gap (a tunnel, a receiver restart) the velocities say little about the way
        // between; an excursion begins from the epoch before it. A fix that is no excursion is
        // accepted, which ends the one going on (`accept`).
        guard seconds <= (excursionSince == nil ? Self.epochGap : Self.maxExcursion + Self.epochGap),
              let place = Self.step(from: reckoned ?? Self.start(at: last), to: location) else { return false }
        let distance = Self.distance(of: location, from: place, about: last)
        if excursionSince == nil, distance <= Self.jumpLimit + Self.jumpGrowth * seconds {
            if anchor == nil, distance > Self.noise(over: seconds), Self.reckonsWell(from: last, to: location) {
                anchor = (last, place)
            }
            return false
        }
        guard distance > Self.noise(over: seconds) else { return false }
        let since = excursionSince ?? location.time
        guard since.seconds(to: location.time) < Self.maxExcursion else { return false }
        excursionSince = since
        reckoned = place
        return true
    }

    /// Where the receiver's velocities put `location`'s time: from the place reckoned for the fix
    /// before, at the mean of the two fixes' velocities. The velocities come from the Doppler
    /// shift, which a reflection leaves alone, so the reckoning follows a turn taken during an
    /// excursion (from its first fix alone, a ramp's 90 degrees in 6 s put the road 17 m from
    /// where it was).
    private static func step(from: Reckoned?, to location: Location) -> Reckoned? {
        guard let from, let v1 = velocity(location) else { return nil }
        let step = from.time.seconds(to: location.time)
        return Reckoned(time: location.time, x: from.x + (from.velocity.x + v1.x) / 2 * step,
                        y: from.y + (from.velocity.y + v1.y) / 2 * step, velocity: v1)
    }

    /// Whether the step from `last` to `location` is one the reckoning follows to within a
    /// receiver's noise: both moving, and turning less than `steadyTurn`. A parked receiver's
    /// wander is no excursion, and a roundabout taken at 20 m/s turns 80 degrees in a second,
    /// which the mean of two velocities misses by more than a reflection moves a fix.
    private static func reckonsWell(from last: Location, to location: Location) -> Bool {
        guard let a = velocity(last), let b = velocity(location), a != (0, 0), b != (0, 0) else { return false }
        let cosine = (a.x * b.x + a.y * b.y) / ((a.x * a.x + a.y * a.y) * (b.x * b.x + b.y * b.y)).squareRoot()
        return cosine >= cos(steadyTurn * .pi / 180)
    }

    /// `fix` as the start of a reckoning, on the plane about it.
    private static func start(at fix: Location) -> Reckoned? {
        velocity(fix).map { Reckoned(time: fix.time, x: 0, y: 0, velocity: $0) }
    }

    /// How far `location` lies from `place`, on the plane about `origin`.
    private static func distance(of location: Location, from place: Reckoned, about origin: Location) -> Double {
        let p = LocalPlane(latitude: origin.latitude, longitude: origin.longitude).project(location)
        return ((p.x - place.x) * (p.x - place.x) + (p.y - place.y) * (p.y - place.y)).squareRoot()
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
        if let limit = configuration.maxAccuracy, let accuracy = location.filterAccuracy, accuracy > limit {
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

    /// Whether a fix no vehicle could reach from `last` belongs to the excursion going on: one
    /// younger than `maxExcursion`, and the fix within `reflectionReach` of where the velocities
    /// put the vehicle (`place`). A run of such fixes is the reflection still, not a new place to
    /// confirm: at 10 Hz a 30 m reflection is 100 m/s from the fix before it, and three of them
    /// were taken for the road (a random drive with reflections: a moving fix 11.6 m from the
    /// kept track, and the kept point in the reflection).
    private func isReflection(_ location: Location, at place: Reckoned?, from last: Location) -> Bool {
        guard let since = excursionSince, since.seconds(to: location.time) < Self.maxExcursion, let place else { return false }
        return Self.distance(of: location, from: place, about: last) <= Self.reflectionReach
    }

    /// The farthest a reflection is taken to move a fix: multipath moves one 10-25 m in a street
    /// canyon, a block at most. A fix farther is the receiver's new place (a first fix after a
    /// cold start corrected), followed once `outlierConfirmations` fixes agree.
    public static let reflectionReach = 100.0

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
