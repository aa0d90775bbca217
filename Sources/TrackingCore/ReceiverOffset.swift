import Glibc

/// How far, and which way, the receiver's fix stands off the vehicle, from the fixes against the
/// path the receiver's own velocity reckons: what tells the deviation trigger on which side of a
/// fix the road lies, and how far.
///
/// A receiver's position error wanders slowly: for seconds on end its fixes stand several metres
/// to one side of the road (make_drive's receiver 2.75 m an axis with a 10 s time constant, 6-9 m
/// for half a minute on some drives). Nothing in the fixes alone shows it; a chord that passes
/// them by the tolerance on their far side from the road then cut the road by 12-16 m (make_drive
/// seed 970's highway curve, 15.6 m; random road 505's, 14.0 m). The receiver's speed and course
/// come from the Doppler shift, not from the position, and do not wander with it: the path they
/// reckon has the road's shape, and the fixes minus that path is the wander plus a constant.
/// Averaged over `window` seconds the wander goes and the constant stays, so each fix minus the
/// reckoned path minus that average is the fix's own offset. The newest `delay` seconds are left
/// out of the average: an excursion that lasts is not averaged into its own reference (on random
/// road 505's curve, fixes 7-9 m inside the road for 15 s read 2-3 m less without it).
///
/// Whether a receiver's velocity is that of the second before its fix (the vehicle moved with it
/// since the last one) or of the instant of the fix (the vehicle moved with the mean of the two)
/// differs between receivers; on a bend the wrong reading reckons a path that drifts off
/// sideways (at 28 m/s on a 560 m curve, 0.7 m a second). Both are reckoned, and the one whose
/// fixes stray less from it (`spread`) is believed.
///
/// Constant memory but for the last `delay` seconds' readings (100 at 10 Hz; at most
/// `maxQueued`). The state is a difference (fix minus reckoned path) carried from fix to fix, so
/// no plane is needed across a drive of any length.
public struct ReceiverOffset: Sendable {
    /// Seconds over which the fixes' offset from the reckoned path is averaged: several times the
    /// wander's time constant (about 10 s), short enough that the reckoning's own error (a degree
    /// of course noise at highway speed) stays small.
    static let window = 40.0
    /// The newest seconds left out of the average.
    static let delay = 10.0
    /// Seconds of reckoning before an offset is told: the average needs a few of the wander's
    /// time constants.
    static let warmUp = 20.0
    /// The longest wait between fixes the reckoning bridges (along the arc the velocities at both
    /// ends span, `arc`); after a longer one (a tunnel, a garage), or one the course turned a
    /// corner across (`turnsACorner`), it starts again. A gap of 5.7 s (fixes the gate rejected)
    /// on random road 101 at 10 Hz otherwise left the next curve unread.
    static let longestGap = 15.0
    /// Readings waiting to join the average, at most: at any rate, `delay` seconds' worth or this.
    static let maxQueued = 1024
    /// Seconds between fixes beyond which the velocity at the later fix no longer stands for the
    /// time between: longer than any receiver's epoch interval.
    static let epoch = 1.5
    /// Seconds over which `spread` is averaged.
    static let spreadWindow = 100.0
    /// Metres (root mean square) beyond which the fixes stray too far from the path their own
    /// velocity reckons for the velocity to describe their motion (a course that is not the
    /// track's, a velocity frozen while the fixes move): nothing is told then. Real receivers'
    /// fixes stray 3-10 m (make_drive's and our own routes', at a red light's drift and through
    /// bursts of reflections); fixes whose reported course never follows the road, hundreds.
    static let believableSpread = 20.0

    /// The path one reading of the receiver's velocity reckons, against the fixes.
    private struct Reckoning: Sendable {
        /// The fix minus the reckoned path, carried from fix to fix (east, north metres).
        var drift = (x: 0.0, y: 0.0)
        /// `drift` averaged over `window`, without the newest `delay` seconds.
        var mean: (x: Double, y: Double)?
        /// How far the fixes stray from the reckoned path and its mean, squared, averaged.
        var spread = 0.0

        mutating func move(fix: (x: Double, y: Double), reckoned: (x: Double, y: Double)) {
            drift = (drift.x + fix.x - reckoned.x, drift.y + fix.y - reckoned.y)
        }

        /// The offset `drift` shows against `mean` (nil before the mean has a reading), and that
        /// offset counted into `spread` with `weight`.
        mutating func offset(weight: Double) -> (x: Double, y: Double)? {
            guard let mean else { return nil }
            let offset = (x: drift.x - mean.x, y: drift.y - mean.y)
            spread += weight * (offset.x * offset.x + offset.y * offset.y - spread)
            return offset
        }

        mutating func average(_ reading: (x: Double, y: Double), weight: Double) {
            guard let old = mean else { mean = reading; return }
            mean = (old.x + weight * (reading.x - old.x), old.y + weight * (reading.y - old.y))
        }
    }

    /// A fix's readings, waiting `delay` to join the means.
    private typealias Queued = (time: FixTime, before: (x: Double, y: Double), between: (x: Double, y: Double))

    /// The velocity read as the vehicle's over the second before the fix.
    private var before = Reckoning()
    /// The velocity read as the vehicle's at the fix: the mean of two fixes' between them.
    private var between = Reckoning()
    private var previous: (location: Location, velocity: (x: Double, y: Double))?
    private var started: FixTime?
    /// The shortest time between fixes seen: the receiver's epoch.
    private var shortestInterval: Double?
    private var lastAveraged: FixTime?
    private var queued: [Queued] = []
    private var oldest = 0

    public init() {}

    /// Reads `fix` (in time order) and tells its offset from where the vehicle is, in metres east
    /// and north, once the reckoning has run `warmUp` seconds; nil before, and for a fix without
    /// a course while moving (no velocity to reckon with: it starts again). `movingSpeed`: below
    /// it the vehicle is taken to stand (a standing receiver's course is noise).
    public mutating func read(_ fix: Location, movingSpeed: Double) -> (x: Double, y: Double)? {
        let speed = fix.speed ?? 0
        let moving = speed >= movingSpeed
        guard let course = fix.course ?? (moving ? nil : 0) else {
            self = ReceiverOffset()
            return nil
        }
        let radians = course * .pi / 180
        let velocity = moving ? (x: speed * sin(radians), y: speed * cos(radians)) : (x: 0.0, y: 0.0)
        var seconds = 0.0
        if let previous {
            seconds = previous.location.time.seconds(to: fix.time)
            guard seconds > 0, seconds <= Self.longestGap else {
                self = ReceiverOffset()
                return read(fix, movingSpeed: movingSpeed)
            }
            guard seconds <= Self.epoch || !Self.turnsACorner(from: previous.velocity, to: velocity, seconds: seconds) else {
                self = ReceiverOffset()
                return read(fix, movingSpeed: movingSpeed)
            }
            let moved = LocalPlane(latitude: previous.location.latitude, longitude: previous.location.longitude).project(fix)
            let interval = min(shortestInterval ?? seconds, seconds)
            shortestInterval = interval
            // Read as the velocity of the time before its fix, a velocity stands for the last
            // epoch before it; over a gap the course turned from the epoch before the previous
            // fix's end to the epoch before this one's.
            before.move(fix: moved, reckoned: seconds > Self.epoch
                            ? Self.arc(from: previous.velocity, to: velocity, seconds: seconds, lead: interval)
                            : (velocity.x * seconds, velocity.y * seconds))
            between.move(fix: moved, reckoned: Self.arc(from: previous.velocity, to: velocity, seconds: seconds))
        }
        previous = (fix, velocity)
        let began = started ?? fix.time
        started = began
        enqueue((fix.time, before.drift, between.drift))
        let weight = 1 - exp(-max(seconds, 0.01) / Self.spreadWindow)
        guard let fromBefore = before.offset(weight: weight), let fromBetween = between.offset(weight: weight),
              began.seconds(to: fix.time) >= Self.warmUp,
              min(before.spread, between.spread) <= Self.believableSpread * Self.believableSpread else { return nil }
        return before.spread <= between.spread ? fromBefore : fromBetween
    }

    /// Where a vehicle gets in `seconds` from velocity `start` to `end` turning steadily: along
    /// the course at the middle of the time, the mean speed times the arc's chord over its
    /// length. Over a gap in a curve the plain mean of the two velocities falls short (by 5 m
    /// over 8 s at 28 m/s turning 3° a second). With `lead`, the velocities stand for the
    /// moments `lead / 2` before each end, so the middle of the time is that much further on.
    static func arc(from start: (x: Double, y: Double), to end: (x: Double, y: Double), seconds: Double,
                    lead: Double = 0) -> (x: Double, y: Double) {
        let startSpeed = (start.x * start.x + start.y * start.y).squareRoot(), endSpeed = (end.x * end.x + end.y * end.y).squareRoot()
        guard startSpeed > 0, endSpeed > 0 else { return ((start.x + end.x) / 2 * seconds, (start.y + end.y) / 2 * seconds) }
        let from = atan2(start.x, start.y)
        var turn = atan2(end.x, end.y) - from
        if turn > .pi { turn -= 2 * .pi } else if turn < -.pi { turn += 2 * .pi }
        let half = turn / 2, course = from + turn * (0.5 + lead / (2 * seconds))
        let length = (startSpeed + endSpeed) / 2 * seconds * (abs(half) < 1e-6 ? 1 : sin(half) / half)
        return (length * sin(course), length * cos(course))
    }

    /// Whether the course turned across a gap of `seconds` from `start`'s to `end`'s at a corner's
    /// rate or faster (`MotionTriggers.cornerRate`, on average): `arc` bridges a gap as one steady
    /// turn, and a corner is not one. Where in the gap the corner was is unknown, and the reckoned
    /// path is off by metres that the average then takes its window to learn: a departure that
    /// turned 60° in a 3 s gap (fixes the gate rejected) left every offset read 2-4 m short for
    /// the next half minute (random road 202 at 5 Hz). The reckoning starts again instead.
    static func turnsACorner(from start: (x: Double, y: Double), to end: (x: Double, y: Double), seconds: Double) -> Bool {
        guard start != (0, 0), end != (0, 0) else { return false }
        var turn = atan2(end.x, end.y) - atan2(start.x, start.y)
        if turn > .pi { turn -= 2 * .pi } else if turn < -.pi { turn += 2 * .pi }
        return abs(turn) * 180 / .pi >= MotionTriggers.cornerRate * seconds
    }

    /// Queues a fix's readings and averages those older than `delay` (or beyond `maxQueued`).
    private mutating func enqueue(_ reading: Queued) {
        queued.append(reading)
        while oldest < queued.count,
              queued[oldest].time.seconds(to: reading.time) >= Self.delay || queued.count - oldest > Self.maxQueued {
            let due = queued[oldest]
            let weight = lastAveraged.map { 1 - exp(-max($0.seconds(to: due.time), 0.01) / Self.window) } ?? 1
            before.average(due.before, weight: weight)
            between.average(due.between, weight: weight)
            lastAveraged = due.time
            oldest += 1
        }
        // Dropped from the front now and then, not one by one.
        if oldest >= 64, oldest * 2 >= queued.count {
            queued.removeFirst(oldest)
            oldest = 0
        }
    }

    /// The room a segment may leave on each side of a fix whose offset from the road is
    /// `offset`, given `left` and `right` (how far it may pass with the fix on its left, on its
    /// right): on the side away from the road, no more than `limit` less how far the fix stands
    /// off it along the normal to `course`, and at least `least`. The segment then passes within
    /// about `limit` of the road there.
    public static func rooms(left: Double, right: Double, offset: (x: Double, y: Double), course: Double,
                             limit: Double, least: Double) -> (left: Double, right: Double) {
        let leftward = leftward(offset, course: course)
        let room = max(least, limit - abs(leftward))
        // A fix left of the road: a segment passing with the fix on its right runs farther left.
        return leftward > 0 ? (left, min(right, room)) : (min(left, room), right)
    }

    /// The room on a fix's far side from the road (`rooms`), however the segment runs.
    public static func farRoom(offset: (x: Double, y: Double), course: Double, limit: Double, least: Double) -> Double {
        max(least, limit - abs(leftward(offset, course: course)))
    }

    /// How far a fix stands to the left of the road: its offset along the normal to the left of
    /// `course`.
    static func leftward(_ offset: (x: Double, y: Double), course: Double) -> Double {
        let radians = course * .pi / 180
        return -offset.x * cos(radians) + offset.y * sin(radians)
    }
}
