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
/// Bounded memory: the fixes of the last `baseline`.
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

    private var recent: [(time: FixTime, course: Double)] = []

    public init() {}

    /// The turn at `fix`, which it then remembers. Fixes come in time order.
    public mutating func turn(at fix: Location) -> Turn {
        guard let course = fix.course else { return .straight }
        defer { recent.append((fix.time, course)) }
        // Keep the newest fix at least `baseline` old as the reference, and everything after it.
        while recent.count > 1, recent[1].time.seconds(to: fix.time) >= Self.baseline { recent.removeFirst() }
        guard let reference = recent.first else { return .straight }
        let elapsed = reference.time.seconds(to: fix.time)
        guard elapsed > 0 else { return .straight }
        let change = DirectionCone.wrapped((course - reference.course) * .pi / 180) * 180 / .pi
        // Over the whole baseline even when the history is shorter (after a start or a stop): a
        // receiver's wander in its first second is no bend, a corner's 90° still is.
        let perSecond = change / max(elapsed, Self.baseline)
        if perSecond >= Self.rate { return .right }
        if perSecond <= -Self.rate { return .left }
        return .straight
    }

    /// Forgets the course history (a stop: the course of a parked receiver is noise).
    public mutating func reset() {
        recent.removeAll(keepingCapacity: true)
    }
}
