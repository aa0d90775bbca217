/// Which way the vehicle is turning at each fix, from the receiver's course over the last few
/// seconds: what tells the deviation trigger on which side of a fix the road lies.
///
/// A receiver's fixes cut a bend on its inside (they lag and smooth the vehicle's own path), so a
/// kept segment that passes inside a bend's fixes cuts the true road by its tolerance *plus* the
/// receiver's cut. `MotionTriggers` therefore allows a segment less room on that side of a fix
/// in a bend (the side its chord takes), and the whole tolerance elsewhere.
///
/// The course is compared with the one `baseline` before: over one second a receiver's course
/// wanders by a degree or two on a straight at speed and by more at 10 Hz, while a highway's
/// long curve turns about 2°/s; over five seconds the wander averages out and the curve does not.
/// Bounded memory: the fixes of the last `baseline`, and at most as many (or 16) forgotten and
/// not yet dropped.
///
/// Where the five seconds see no bend, a sharp one over the last `shortBaseline` still counts: at
/// an S-curve's inflection the five seconds hold the end of the first bend and the start of the
/// second, their changes cancel, and the second bend's inside had the whole tolerance (a random
/// road of our own at 5 Hz, 13.5 m from the true path; 10.7 m with the short reading, the same
/// points). Only there: where the five seconds see a bend, their side stands, for a short
/// reading against it came at a roundabout's exit as well as in S-curves (read so too, random
/// road 1420 under DistanceBased went 10.2 -> 16.7 m, the suburb at 5 Hz under TimeBased
/// 56.7 -> 102.2 m).
public struct TurnWatch: Sendable {
    /// The side of the vehicle's path on which its bend lies.
    public enum Turn: Sendable, Equatable {
        /// Turning right (the course grows): a chord across the bend passes on its right.
        case right
        /// Turning left (the course shrinks).
        case left
        /// Straight, or turning slower than `rate`; or no course to tell.
        case straight
    }

    /// How far back the course is compared.
    public static let baseline = 5.0
    /// Degrees a second of course change that make a bend.
    public static let rate = 1.5
    /// How far back the course is compared for a sharp bend the `baseline` misses.
    public static let shortBaseline = 2.0
    /// Degrees a second of course change over `shortBaseline` that make a bend: above a
    /// receiver's wander over two seconds, below an S-curve's 6-10°/s at town speeds.
    public static let sharpRate = 4.0

    /// Whether a sharp bend over `shortBaseline` counts where the `baseline` sees none.
    public let readsSharpBends: Bool
    /// How fast the course turned over the `baseline` at the last fix read, in degrees a second
    /// (0 without a course to compare): a town corner's 90° in five seconds reads 18, a highway's
    /// long curve 2-3.
    public private(set) var degreesPerSecond = 0.0
    /// The fixes remembered, oldest first, from `oldest` on: those before it are forgotten, and
    /// dropped from the array only now and then (removed one by one from its front, each fix
    /// moved every one after it: at 10 Hz fifty).
    private var recent: [(time: FixTime, course: Double)] = []
    private var oldest = 0

    public init(readsSharpBends: Bool = true) {
        self.readsSharpBends = readsSharpBends
    }

    /// The turn at `fix`, which it then remembers. Fixes come in time order.
    public mutating func turn(at fix: Location) -> Turn {
        turn(course: fix.course, at: fix.time)
    }

    /// The turn at a fix of `time` whose course is `course` (none: straight, and not remembered).
    mutating func turn(course: Double?, at time: FixTime) -> Turn {
        degreesPerSecond = 0
        guard let course else { return .straight }
        defer { remember(time, course) }
        // Keep the newest fix at least `baseline` old as the reference, and everything after it.
        while recent.count - oldest > 1, recent[oldest + 1].time.seconds(to: time) >= Self.baseline { oldest += 1 }
        guard oldest < recent.count else { return .straight }
        let reference = recent[oldest]
        let elapsed = reference.time.seconds(to: time)
        guard elapsed > 0 else { return .straight }
        // Over the whole baseline even when the history is shorter (after a start or a stop): a
        // receiver's wander in its first second is no bend, a corner's 90° still is.
        let seconds = max(elapsed, Self.baseline)
        degreesPerSecond = abs(Self.degreesPerSecond(from: reference.course, to: course, over: seconds))
        let turn = Self.turn(from: reference.course, to: course, over: seconds, rate: Self.rate)
        return turn != .straight ? turn : sharpTurn(to: course, at: time)
    }

    /// Remembers a fix, first dropping the forgotten ones once they are as many as those kept.
    private mutating func remember(_ time: FixTime, _ course: Double) {
        if oldest >= 16, oldest * 2 >= recent.count {
            recent.removeFirst(oldest)
            oldest = 0
        }
        recent.append((time, course))
    }

    /// The turn over the last `shortBaseline`, when it is sharp (`sharpRate`); else straight.
    private func sharpTurn(to course: Double, at time: FixTime) -> Turn {
        guard readsSharpBends, let near = recent[oldest...].last(where: { $0.time.seconds(to: time) >= Self.shortBaseline }) else { return .straight }
        return Self.turn(from: near.course, to: course, over: near.time.seconds(to: time), rate: Self.sharpRate)
    }

    /// The side a course turns to from `old` to `new` over `seconds`, when at `rate` degrees a
    /// second or faster; else straight.
    private static func turn(from old: Double, to new: Double, over seconds: Double, rate: Double) -> Turn {
        let perSecond = degreesPerSecond(from: old, to: new, over: seconds)
        if perSecond >= rate { return .right }
        if perSecond <= -rate { return .left }
        return .straight
    }

    /// Degrees a second from course `old` to `new` over `seconds`, the shorter way round: positive
    /// to the right.
    private static func degreesPerSecond(from old: Double, to new: Double, over seconds: Double) -> Double {
        DirectionCone.wrapped((new - old) * .pi / 180) * 180 / .pi / seconds
    }

    /// Forgets the course history (a stop: the course of a parked receiver is noise).
    public mutating func reset() {
        recent.removeAll(keepingCapacity: true)
        oldest = 0
    }
}
