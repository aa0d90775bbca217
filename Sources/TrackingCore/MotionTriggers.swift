/// The second stage of the filter chain: decides which good fixes are worth keeping.
///
/// A fix is kept when a trigger fires: the first fix; a heartbeat (`max-interval` while moving,
/// `stationary-interval` while stopped; a corner the heartbeat's fix needs, or one the road needs
/// soon after, is proof of life enough, and kept instead); path deviation; a stop (at a fix of
/// the stop's that the track reaches without a corner, see `stopPoint`) or a departure; and the
/// optional `min-distance` and `min-angle`. While stopped only the heartbeat fires, so receiver
/// drift never adds points; at the departure, where the point kept for the stop is a fix drifted
/// off the place (`ParkedPlace`), the fix nearest where the vehicle stood is kept too.
///
/// Path deviation keeps the track within `max-deviation` of every moving fix with close to the
/// fewest points any track could (`FewestPoints`): a `DirectionCone` from the last kept fix holds
/// the directions a segment from it may take and still pass near every fix since, and while one
/// remains the fixes are only held. When none remains, the last fix such a segment could end at
/// is kept (the segment reaching farthest; a hairpin's apex instead, see `apexFactor`; where a
/// gentle bend began, when the segment cut its first fixes, see `BendStart`; one the track could
/// not go on from within the tolerance, the fixes after it too close to it to be points, gives
/// way to one it can, see `followableCorner`), and the fixes after it are judged again from
/// there: sector intersection (Williams 1978) driving an opening window, as in the one-pass
/// error-bounded family (OPERB, CISED). Each fix costs
/// constant time, a corner the fixes held since it (a corner moved back to a bend's start, the
/// held fixes once for each fix it passes over); those are at most `maxHeld`. The kept track
/// passes within `max-deviation` of every moving fix between its points (the cone keeps to
/// `coneShare` of it, to `turnShare` on a bend's inside of a fix, see `TurnWatch`, to
/// `cornerShare` there in a corner (`readTurnShare`, `readCornerShare` where the fix's offset
/// from the road is read, without a tracker rule), on a fix's far side from the road to
/// `roadShare` less its offset, and to `gapShare` at the first fix after a gap, a tunnel).
///
/// "Stopped" has hysteresis: moving → stopped after `stop-delay` seconds of fixes no faster than
/// `stopped-speed`; stopped → moving after two consecutive fixes at least `moving-speed` fast,
/// or a fix beyond `departure-distance` (and both accuracies) from the stop point.
/// All timing is receiver fix time.
public struct MotionTriggers: Sendable {
    /// Whether the vehicle is moving, as decided with hysteresis.
    public enum Motion: String, Sendable { case moving, stopped }

    public var configuration: FilterConfiguration {
        // A reload's new max-deviation (or the tracker's rule, which sets the cone's share)
        // applies to the fixes held, not only from the next point.
        didSet {
            if configuration.maxDeviation != oldValue.maxDeviation || configuration.trackerFiltering != oldValue.trackerFiltering {
                // A corner waiting is chosen again, from the fixes judged anew.
                pendingCorner = nil
                rehold()
            }
        }
    }
    public private(set) var motion: Motion = .stopped
    public private(set) var lastKept: Location?

    /// An accepted fix held since the last kept one: its position in a plane around that point,
    /// whether a segment from it reaches the fix, and what `hold` was told of it.
    private typealias Held = (location: Location, x: Double, y: Double, reachable: Bool, turn: TurnWatch.Turn, corner: Bool, afterGap: Bool,
                              offset: Offset?)
    /// Where a fix stands off the road, metres east and north (`ReceiverOffset`).
    private typealias Offset = (x: Double, y: Double)
    /// Accepted fixes since the last kept one.
    private var since: [Held] = []
    /// A corner chosen (`cornerCandidate`) whose fixes after it do not yet show whether the track
    /// can go on from it (`followability`): none `min-interval` past it is held yet, or none of
    /// those is reached. It is kept when they show it can, or another is; meanwhile the fixes are
    /// held (`waits`).
    private var pendingCorner: Candidate?
    /// Which way the vehicle turns at each moving fix.
    private var turns = TurnWatch()
    /// Where each fix stands off the road.
    private var offsets = ReceiverOffset()
    /// Where the last fix processed stands off the road, metres east and north, when read
    /// (`ReceiverOffset`) and the fix moves with a course: the tracker's spacing gives a segment
    /// the same room by it.
    public private(set) var lastOffset: (x: Double, y: Double)?
    /// The last fix given `cornerShare` (`isCorner`).
    private var lastCornerFix: FixTime?
    private var plane: LocalPlane?
    /// The directions from the last kept fix that pass within `max-deviation` of every held fix.
    private var cone: DirectionCone
    /// The previous accepted fix.
    private var previous: Location?
    /// Moving: when the current run of slow fixes began.
    private var slowSince: FixTime?
    /// Stopped: where the vehicle stopped (the point kept for it) and where it stands, from all
    /// its fixes since; consecutive fast fixes, and the fix before them.
    private var parked: ParkedPlace?
    private var fastRun = 0
    private var beforeFastRun: Location?
    /// Stopped: the fixes since the last one where the vehicle stood, oldest first (at most
    /// `maxWayOut`), and whether each ended a gap: when it moves off they are the first of the way
    /// out, already moving.
    private var wayOut: [(location: Location, afterGap: Bool, offset: Offset?)] = []
    static let maxWayOut = 100

    /// Longest run of fixes held for the deviation check before one is kept regardless.
    private let maxHeld = 5000
    /// The share of `max-deviation` the cone allows between the kept track and the fixes, on a
    /// straight and on a bend's outside: all of it. Where the fixes wander about a straight road,
    /// the road is among them and a segment within the tolerance of them stays near it.
    public static let coneShare = 1.0
    /// The share a segment gets on a bend's inside of a fix (`TurnWatch`). The receiver's fixes
    /// cut a bend by several metres themselves, so a chord cutting them by the whole tolerance
    /// cut the road by 13-15 m (make_drive's curves and corners). Measured on make_drive's seeds
    /// and our own routes at 1, 5 and 10 Hz (SimplificationFidelityTests): at 0.7, every track
    /// within 12 m of the true path (or 1.2x the every-fix floor) with at most 1.2x the fewest
    /// points at 1 and 5 Hz; a single 0.8 everywhere kept up to 1.25x, and left seed 43's first
    /// corner 12.6 m off.
    public static let turnShare = 0.7
    /// The share on a bend's inside of a fix in a corner (`isCorner`): a bend turning
    /// `cornerRate` or faster. Where a corner's fixes stand inside the road, a segment out of it
    /// cutting them by `turnShare` cut the road by more than 12 m: make_drive seed 43's first
    /// corner (90° in six seconds, its fixes up to 10.6 m inside) was 12.03 m from the true
    /// path; at 0.6 it is 11.6 m, with the same points. On 300 random roads (1, 5 and 10 Hz):
    /// 0.4 % more points, 6 fewer tracks beyond the distance bound (BENCHMARKS.md).
    public static let cornerShare = 0.6
    /// Degrees a second over `TurnWatch.baseline` from which a bend is a corner: a town corner
    /// turns 15-20 a second, a roundabout more, a highway's curve 2-3.
    static let cornerRate = 15.0
    /// A moving fix this many seconds after the one before it ends a gap: a tunnel, a garage, a
    /// receiver that lost its sky, or fixes the gate rejected while the vehicle pulled away. Longer
    /// than any receiver's fix interval. At 10 s, random road 303's departure from a red light
    /// into a roundabout, its first 6 s of fixes rejected for their accuracy, was cut by 17 m; at
    /// 5 s it is 11.9 m off with the same points, and no other of 61 drives changed.
    static let gapSeconds = 5.0
    /// The share a segment gets on both sides of the first fix after a gap. Nothing is known of the
    /// road across the gap: the segment spanning it stands in for all of it, and where it ends is
    /// the one place the vehicle was seen again. With the whole tolerance, a segment past a tunnel's
    /// end cut the road in it by 13 m (make_drive seed 61: the receiver 5 m off there besides).
    static let gapShare = 0.5
    /// How far from the road, as a share of `max-deviation`, a segment may pass a fix that stands
    /// off it (`ReceiverOffset`), on the fix's far side from the road: the segment passing the
    /// fix there by all the room it would have otherwise, plus the fix's own offset, cut the road
    /// by 12-16 m (make_drive seeds 970, 714, 1234, 1825; random road 505).
    static let roadShare = 1.1
    /// The least room a fix's offset leaves a segment, as a share of `max-deviation`: the
    /// offset read is an estimate (1.4-2.9 m off, root mean square), and a fix far off the road
    /// (a reflection the gate let through) must not ask for the track to hug it.
    static let leastShare = 0.3
    /// The share on a bend's inside of a fix where its offset from the road is read
    /// (`ReceiverOffset`), without a tracker rule; `readCornerShare` in a corner. `turnShare` and
    /// `cornerShare` stand in for what the fixes alone cannot tell: that they cut the bend, and
    /// by how much. Where the offset is read, a fix that cuts the bend has its far side from the
    /// road narrowed by that much already (`roadShare`), and the blanket share only cost points.
    /// On 53 drives (the suite's 17 and 36 recorded for the measuring, 8 of them after the shares
    /// were chosen; 1, 5 and 10 Hz): 4.4 % fewer points, 1 track over 1.2x the fewest at 1 and
    /// 5 Hz instead of 4, 2 beyond the distance bound as before (a make_drive seed's U-turn went
    /// 12.6 -> 12.9 m against its 12.7 m, another's 12.4 -> 10.1 m against 12). At 0.75 the
    /// points were 2 % more for the same misses, at 0.85 the misses 4 (BENCHMARKS.md). Under a
    /// rule the triggers keep `turnShare`: there the choice among fixes 30 m apart and more
    /// follows their wishes, and with the milder share an unseen make_drive seed under
    /// DistanceBased went 9.4 -> 14.1 m from the true path. The spacing (`SpacedPath.FixBlocks`)
    /// weighs a bend's inside by `readTurnShare` where the offset is read.
    public static let readTurnShare = 0.8
    /// The share on a bend's inside of a fix in a corner where its offset is read, without a
    /// tracker rule (`readTurnShare`).
    public static let readCornerShare = 0.65
    /// A stop's point drifted farther than this share of `max-deviation` from where the vehicle
    /// stood gets the departure's point at the place (see `processStopped`).
    static let driftShare = 0.8
    /// Under TimeBased the tracker's 30 s, not the tolerance, sets how many points are sent, and
    /// the spacing chooses among the corners the cone finds: there the cone keeps
    /// `timeBasedShare`, for corners closer to the road to choose from.
    static let timeBasedShare = 0.8

    /// A turn whose apex stands this many `max-deviation`s off the chord (a U-turn, a hairpin) is
    /// kept at its apex, where the road is, rather than at the farthest point the cone reaches.
    static let apexFactor = 3.0

    /// A heartbeat falls due `max-interval` after the last point and is decided a sixth of
    /// `max-interval` later (10 s at the default 60): a corner the road needs meanwhile is proof
    /// of life already, kept instead (a point due on a straight that ended a few seconds later in
    /// a curve or a corner was a point the track did not need: two of the five heartbeats of some
    /// make_drive seeds). Otherwise the fix it fell due at is kept, so on a straight points are
    /// never more than `max-interval` apart. Without a tracker rule only: under one, the
    /// spacing meets a heartbeat by any fix within `TrackerSpacing.lookahead` (10 s) after it was
    /// due, and a wish held back here moved the 30 s grid of TimeBased points (an unseen random
    /// road's hairpin: 36.8 -> 121.8 m from the true path).
    private var heartbeatGrace: Double { configuration.maxInterval / 6 }

    /// The cone's tolerance: `max-deviation` times the share for the tracker's rule.
    private var coneTolerance: Double { Self.coneTolerance(configuration) }

    private static func coneTolerance(_ configuration: FilterConfiguration) -> Double {
        configuration.maxDeviation * (configuration.trackerFiltering == .timeBased ? timeBasedShare : coneShare)
    }

    public init(configuration: FilterConfiguration) {
        self.configuration = configuration
        cone = DirectionCone(tolerance: Self.coneTolerance(configuration))
    }

    /// Fixes held for the deviation check (the memory the stage holds, besides its own fields).
    public var heldFixes: Int { since.count }

    /// Processes one fix that passed the gate; returns what to keep, in time order.
    public mutating func process(_ fix: Location) -> [KeptLocation] {
        defer { previous = fix }
        // Only a moving fix's offset says which side of it the road lies: across its course.
        let read = offsets.read(fix, movingSpeed: configuration.movingSpeed)
        let offset = fix.course != nil && (fix.speed ?? 0) >= configuration.movingSpeed ? read : nil
        lastOffset = offset
        guard let last = lastKept else {
            motion = (fix.speed ?? 0) >= configuration.movingSpeed ? .moving : .stopped
            parked = motion == .stopped ? ParkedPlace(kept: fix) : nil
            return [keep(fix, .first)]
        }
        switch motion {
        case .stopped:
            return processStopped(fix, last: last, offset: offset)
        case .moving:
            return processMoving(fix, last: last, offset: offset)
        }
    }

    /// At the end of a stream: the last fix, when moving and not yet kept, so the track reaches it
    /// (after the corners on the way).
    public mutating func finish() -> [KeptLocation] {
        let waited = keepPendingCorner(then: nil)
        guard motion == .moving, let previous, let last = lastKept, previous.time > last.time else { return waited }
        return waited + keepCorners(before: previous) + [keep(previous, .final)]
    }

    // MARK: - Stopped

    private mutating func processStopped(_ fix: Location, last: Location, offset: Offset?) -> [KeptLocation] {
        let anchor = parked?.stopPoint ?? last
        if (fix.speed ?? 0) >= configuration.movingSpeed {
            if fastRun == 0 { beforeFastRun = previous }
            fastRun += 1
        } else {
            fastRun = 0
            beforeFastRun = nil
        }
        if fix.stands(atMost: configuration.stoppedSpeed) {
            wayOut.removeAll(keepingCapacity: true)
        } else {
            if wayOut.count == Self.maxWayOut { wayOut.removeFirst() }
            wayOut.append((fix, endsGap(fix), offset))
        }
        let distance = Geodesy.distance(anchor, fix)
        let far = distance > configuration.departureDistance
            && distance > anchor.accuracies(with: fix)
        guard fastRun >= 2 || far else {
            if fastRun == 0 { parked?.add(fix) }
            if last.time.seconds(to: fix.time) >= configuration.stationaryInterval {
                parked?.keptPoint()
                return [keep(fix, .heartbeat)]
            }
            return []
        }
        motion = .moving
        slowSince = nil
        var out: [KeptLocation] = []
        if let departure = departurePoint(last: last) { out.append(keep(departure, .departure)) }
        parked = nil
        // The fixes since the vehicle last stood are the first of the way out: the track must
        // pass near them too. The fast run's first one, and the slower ones before it while the
        // vehicle pulled away: at 10 Hz a stop's point drifted 6 m off left them 12 m from the
        // segment after it (a random road of our own).
        // One of them that ended a gap (the gate rejected the fixes as the vehicle pulled away)
        // gets the gap's share, like any first fix after one.
        for moving in wayOut.dropLast() where moving.location.time > (lastKept ?? last).time {
            hold(moving.location, .straight, afterGap: moving.afterGap, offset: moving.offset)
        }
        wayOut.removeAll(keepingCapacity: true)
        fastRun = 0
        beforeFastRun = nil
        turns.reset()
        hold(fix, .straight, afterGap: endsGap(fix), offset: offset)
        return out
    }

    /// The point the departure needs, if any: the last fix before the vehicle moved, unless it
    /// stands at the point already kept (the stop point, or the first fix), give or take
    /// receiver drift, where it adds nothing to the track; otherwise where the vehicle stood,
    /// when the point kept for the stop was a fix drifted off it.
    private func departurePoint(last: Location) -> Location? {
        if let departure = beforeFastRun ?? previous, departure.time > last.time,
           Geodesy.distance(last, departure) > max(configuration.maxDeviation, last.accuracies(with: departure)) {
            return departure
        }
        guard let parked, let place = parked.nearest, place.time > last.time,
              parked.offset(of: last) > configuration.maxDeviation * Self.driftShare,
              parked.offset(of: place) < parked.offset(of: last) / 2 else { return nil }
        return place
    }

    // MARK: - Moving

    private mutating func processMoving(_ fix: Location, last: Location, offset: Offset?) -> [KeptLocation] {
        var out: [KeptLocation] = []
        let turn = turns.turn(at: fix)
        let corner = isCorner(fix)
        let afterGap = endsGap(fix)
        if let candidate = pendingCorner {
            let next = unheld(fix)
            if followability(from: candidate.index, then: next).isOpen, waits(for: fix, after: since[candidate.index].location) {
                hold(fix, turn, corner: corner, afterGap: afterGap, offset: offset)
                return []
            }
            out += keepPendingCorner(then: next)
        }
        if fix.stands(atMost: configuration.stoppedSpeed) {
            let start = slowSince ?? fix.time
            slowSince = start
            if start.seconds(to: fix.time) >= configuration.stopDelay {
                // The corners on the way to the stop, up to where the vehicle came to rest (the
                // first slow fix); the slow fixes after it are the receiver's drift.
                let resting = since.filter { $0.location.time >= start }.map(\.location) + [fix]
                since.removeAll { $0.location.time > start }
                rehold()
                let point = stopPoint(among: resting)
                out += keepCorners(upTo: point)
                motion = .stopped
                slowSince = nil
                parked = ParkedPlace(kept: point)
                for later in resting where later.time > point.time { parked?.add(later) }
                fastRun = 0
                out.append(keep(point, .stop))
                return out
            }
        } else {
            slowSince = nil
        }
        let reference = lastKept ?? last
        if let trigger = trigger(for: fix, reference: reference) {
            let due = dueHeartbeat(reference: reference)
            if trigger == .heartbeat, holdsHeartbeat(due: due, afterGap: afterGap) {
                if let due, since[due].location.time.seconds(to: fix.time) >= heartbeatGrace { out += keepHeartbeat(at: due) }
            } else {
                let corners = keepCorners(upTo: fix)
                out += corners
                // A heartbeat is proof of life: a corner the fix needed, newer than the last point,
                // is that already, and the fix is judged from it like any other.
                guard trigger == .heartbeat, !corners.isEmpty else {
                    out.append(keep(fix, trigger))
                    return out
                }
            }
        }
        hold(fix, turn, corner: corner, afterGap: afterGap, offset: offset)
        // While slowing to a possible stop, receiver drift would look like corners: the fixes are
        // held and judged when the vehicle either stops or moves on.
        if slowSince == nil { out += keepCorners(mayWait: true) }
        if since.count > maxHeld, let corner = since.last?.location {
            out.append(keep(corner, .deviation))
        }
        return out
    }

    /// The stop's point among `resting`, the fixes since the vehicle came to rest (the last is the
    /// one at which `stop-delay` ran out): that last one, unless the track could not reach it
    /// from the last point without a corner on the way in while it can reach another of them;
    /// then, of those it reaches, the nearest the middle of them all. While it stands the
    /// receiver drifts (make_drive's fixes wander 5.7 m an axis at a red light, 2.8 m on the
    /// move), and a fix drifted sideways off the line of the approach cost a corner before
    /// the stop and often another after it, where the way out left from the drifted point
    /// (make_drive seed 2330: 30 points against the fewest 24). On the suite's 17 drives, 13
    /// points fewer (448 -> 435) with the same distance from the true path on every one.
    private func stopPoint(among resting: [Location]) -> Location {
        let last = resting[resting.count - 1]
        guard resting.count > 1, let plane else { return last }
        guard !covers(plane.project(last)) else { return last }
        // Where the vehicle stands, as a stop's place is measured while it is parked.
        var place = ParkedPlace(kept: resting[0])
        for fix in resting.dropFirst() { place.add(fix) }
        return resting.filter { covers(plane.project($0)) }.min { place.offset(of: $0) < place.offset(of: $1) } ?? last
    }

    /// Whether `fix`, just read by `turns`, gets `cornerShare` on its bend's inside: the course
    /// turning `cornerRate` or faster, the vehicle moving (a receiver's course while it barely
    /// moves is noise: in stop-and-go at 10 Hz it read as corners and cost points), and at most
    /// one fix a second. The tighter room guards against the receiver's slow wander, which one
    /// fix a second shows as well as ten; given to every fix, a 10 Hz receiver's noise bought a
    /// point more on a roundabout than the same road at 1 Hz kept (the suburb route).
    private mutating func isCorner(_ fix: Location) -> Bool {
        guard turns.degreesPerSecond >= Self.cornerRate, (fix.speed ?? 0) >= configuration.movingSpeed,
              lastCornerFix.map({ $0.seconds(to: fix.time) >= 1 }) ?? true else { return false }
        lastCornerFix = fix.time
        return true
    }

    /// Whether `fix` comes `gapSeconds` or more after the fix before it.
    private func endsGap(_ fix: Location) -> Bool {
        previous.map { Self.isGap(from: $0, to: fix) } ?? false
    }

    /// Whether `fix` comes `gapSeconds` or more after `before`: the first fix after a gap.
    static func isGap(from before: Location, to fix: Location) -> Bool {
        before.time.seconds(to: fix.time) >= gapSeconds
    }

    /// The time- and distance-based triggers for `fix`, measured from the last kept fix.
    private func trigger(for fix: Location, reference: Location) -> KeepTrigger? {
        let elapsed = reference.time.seconds(to: fix.time)
        guard elapsed >= configuration.minInterval else { return nil }
        if elapsed >= configuration.maxInterval { return .heartbeat }
        if let minDistance = configuration.minDistance {
            let distance = Geodesy.distance(reference, fix)
            if distance >= minDistance, distance > reference.accuracies(with: fix) {
                return .distance
            }
        }
        if let minAngle = configuration.minAngle, let course = fix.course, let keptCourse = reference.course,
           (fix.speed ?? 0) >= configuration.movingSpeed, Geodesy.angleBetween(course, keptCourse) >= minAngle {
            return .angle
        }
        return nil
    }

    /// Keeps the corners the held fixes need: while no segment from the last kept fix passes near
    /// them all, the farthest-reaching end is kept and the fixes after it are judged from it.
    /// With `mayWait`, a corner whose fixes after it do not yet show whether the track can go on
    /// from it waits for them (`pendingCorner`).
    private mutating func keepCorners(mayWait: Bool = false) -> [KeptLocation] {
        var out: [KeptLocation] = []
        while cone.isEmpty, let end = since.last, let candidate = cornerCandidate(towards: (end.x, end.y)) {
            if mayWait, candidate.reached != nil, followability(from: candidate.index).isOpen {
                pendingCorner = candidate
                break
            }
            out.append(reanchor(at: followableCorner(candidate)))
        }
        return out
    }

    /// The corner waiting (`pendingCorner`), if any, or another the fixes after it, with `next`
    /// (a fix not held yet), show the track can go on from (`followableCorner`); the fixes after
    /// it are then judged from it.
    private mutating func keepPendingCorner(then next: Next?) -> [KeptLocation] {
        guard let candidate = pendingCorner else { return [] }
        pendingCorner = nil
        return [reanchor(at: followableCorner(candidate, then: next, settled: true))]
    }

    /// Whether a corner waiting may wait past `fix`: for at most `gapSeconds` (the answer comes
    /// with the first fix `min-interval` past the corner, but not while the fixes come back
    /// towards it, a U-turn), and while nothing but the deviation check would keep a point at
    /// `fix` (no time or distance trigger measured from the corner, no slow fix that could begin
    /// a stop), so that waiting keeps what keeping the corner at once would have.
    private func waits(for fix: Location, after corner: Location) -> Bool {
        corner.time.seconds(to: fix.time) < Self.gapSeconds && !fix.stands(atMost: configuration.stoppedSpeed)
            && trigger(for: fix, reference: corner) == nil && since.count < maxHeld
    }

    /// The corners needed before `fix` is kept: until the segment from the last kept fix to it
    /// passes within `max-deviation` of every fix held. Where no fix held after a corner is
    /// `min-interval` past it, none can be a point before `fix`, and the corner must be one the
    /// track can go on from to `fix` itself (`followableCorner`): a drive that ended 1 s into a
    /// burst of reflections that began 0.2 s after its last corner left the burst's first fix
    /// 11.4 m from the segment to the last fix (a random drive with reflections at 5 Hz).
    private mutating func keepCorners(upTo fix: Location) -> [KeptLocation] {
        var out = keepCorners()
        while let next = unheld(fix), !since.isEmpty, !covers((next.x, next.y)), let candidate = cornerCandidate(towards: (next.x, next.y)) {
            let corner = since[candidate.index].location.time
            let closing = !since[(candidate.index + 1)...].contains { corner.seconds(to: $0.location.time) >= configuration.minInterval }
            out.append(reanchor(at: closing ? followableCorner(candidate, then: next, settled: true) : followableCorner(candidate)))
            out += keepCorners()
        }
        return out
    }

    /// The corners needed before `fix`, judged without the fixes held from it on (the end of the
    /// stream, a heartbeat decided after the fix it fell due at).
    private mutating func keepCorners(before fix: Location) -> [KeptLocation] {
        since.removeAll { $0.location.time >= fix.time }
        rehold()
        return keepCorners(upTo: fix)
    }

    /// The held fix to keep as a corner, among those a segment from the last kept fix reaches:
    /// the one farthest from the chord to `end` (the apex of the turn, where the road's own
    /// shape is), or, where none stands out (a long gentle curve), the one reached last, or the
    /// start of the gentle bend it lies in (`BendStart`), with the fix reached last: another may
    /// be kept instead when the track could not go on from it within the tolerance
    /// (`followableCorner`, which may wait for the fixes after it: `pendingCorner`). Without any
    /// (each closer than `min-interval` to the last kept fix), the first held fix past it.
    private func cornerCandidate(towards end: (x: Double, y: Double)) -> Candidate? {
        var apex: Int?
        var apexDistance = configuration.maxDeviation * Self.apexFactor
        var last: Int?
        for (index, held) in since.enumerated() where held.reachable {
            last = index
            let distance = LocalPlane.distance(from: (held.x, held.y), toSegment: (0, 0), end)
            if distance > apexDistance { (apex, apexDistance) = (index, distance) }
        }
        if let apex, let last { return Candidate(index: apex, reached: last) }
        if let last { return Candidate(index: bendStart(insteadOf: last, towards: end) ?? last, reached: last) }
        guard let kept = lastKept else { return nil }
        return since.firstIndex { kept.time.seconds(to: $0.location.time) >= configuration.minInterval }.map { Candidate(index: $0, reached: nil) }
    }

    /// A corner chosen among the held fixes (an index into `since`), and the fix the cone reached
    /// last (nil: none; the corner is the first held fix past `min-interval`).
    private struct Candidate {
        var index: Int
        var reached: Int?
    }

    /// A fix not held yet, on the plane about the last kept one.
    private typealias Next = (x: Double, y: Double, time: FixTime)

    /// `fix` as a `Next`: on the plane about the last kept fix (nil before the first).
    private func unheld(_ fix: Location) -> Next? {
        plane.map { plane in
            let point = plane.project(fix)
            return (x: point.x, y: point.y, time: fix.time)
        }
    }

    /// The candidate's corner, or when the track cannot go on from it within the tolerance
    /// (`followability`), the fix reached last or the latest fix the cone reached at most
    /// `min-interval` earlier that it can go on from: from there the fixes of the jump are past
    /// `min-interval` themselves. The corner itself when there is none. When the fixes that
    /// decide are all in (`settled`: the corner has waited for them, or the point after it is
    /// known), one whose fixes past `min-interval` are none of them reached gives way too, to one
    /// that reaches one.
    private func followableCorner(_ candidate: Candidate, then next: Next? = nil, settled: Bool = false) -> Int {
        guard let reached = candidate.reached else { return candidate.index }
        let accepts: (Followability) -> Bool
        switch followability(from: candidate.index, then: next) {
        case .cannot: accepts = { $0 != .cannot }
        case .unreached where settled: accepts = { $0 == .reaches }
        case .reaches, .unseen, .unreached: return candidate.index
        }
        let earliest = since[candidate.index].location.time.adding(seconds: -configuration.minInterval)
        let earlier = (0..<candidate.index).reversed().prefix { since[$0].location.time >= earliest }.filter { since[$0].reachable }
        return ((reached > candidate.index ? [reached] : []) + earlier).first { accepts(followability(from: $0, then: next)) } ?? candidate.index
    }

    /// Whether the track can go on from held fix `index` within the tolerance: whether the fixes
    /// after it that `min-interval` forbids as points lie near a segment from it to a fix past
    /// `min-interval` (`then`, a fix not held yet, counted after the held ones). At 5 Hz a
    /// receiver jumped 14 m 0.2 s after a corner and stayed there for 0.8 s; no segment from the
    /// corner to a fix a second on passed within 10 m of those fixes, and the track passed 10.5 m
    /// from one (a random road of our own, never seen before). A corner a second earlier reaches
    /// them. Where the fixes stop soon after a corner (the gate rejected a burst of reflections,
    /// a tunnel), the first fix after them gives the answer: the corner waits for it.
    private func followability(from index: Int, then next: Next? = nil) -> Followability {
        let corner = since[index]
        var sleeve = DirectionCone(tolerance: cone.tolerance)
        var pastSeen = false
        func judge(_ x: Double, _ y: Double, _ time: FixTime) -> Followability? {
            let point = (x: x - corner.x, y: y - corner.y)
            let past = corner.location.time.seconds(to: time) >= configuration.minInterval
            if past, sleeve.admits(point) { return .reaches }
            pastSeen = pastSeen || past
            sleeve.add(point)
            return sleeve.isEmpty ? .cannot : nil
        }
        for held in since[(index + 1)...] {
            if let answer = judge(held.x, held.y, held.location.time) { return answer }
        }
        if let next, let answer = judge(next.x, next.y, next.time) { return answer }
        return pastSeen ? .unreached : .unseen
    }

    /// Whether the track can go on from a held fix within the tolerance (`followability`).
    private enum Followability {
        /// A segment from it to a fix past `min-interval` passes near every fix between.
        case reaches
        /// No segment from it passes near the fixes after it: the track cannot go on from it.
        case cannot
        /// No fix past `min-interval` is held yet.
        case unseen
        /// Fixes past `min-interval` are held, and no segment to one of them passes near the fixes
        /// between; one to a later fix still may.
        case unreached

        /// Whether fixes still to come may change the answer.
        var isOpen: Bool { self == .unseen || self == .unreached }
    }

    /// Where the gentle bend that held fix `last` lies in began, when the segment to `last` cuts
    /// its first fixes (`BendStart`). Not under TimeBased: there the spacing chooses the points
    /// among the fixes, and the triggers' corners only say where the road turns.
    private func bendStart(insteadOf last: Int, towards end: (x: Double, y: Double)) -> Int? {
        guard configuration.trackerFiltering != .timeBased else { return nil }
        let bend = BendStart(points: since.map { ($0.x, $0.y) }, straight: since.map { $0.turn == .straight },
                             reachable: since.map(\.reachable), tolerance: cone.tolerance)
        return bend.vertex(insteadOf: last, towards: end)
    }

    /// The first held fix `max-interval` (and `min-interval`) after `reference`, if any.
    private func dueHeartbeat(reference: Location) -> Int? {
        let interval = max(configuration.maxInterval, configuration.minInterval)
        return since.firstIndex { reference.time.seconds(to: $0.location.time) >= interval }
    }

    /// Whether a heartbeat is held for `heartbeatGrace` after it fell due (at held fix `due`, or
    /// at this fix when none is held): when it fell due while the road was followed, a fix held
    /// before it not yet due. One due at the first fix held (after a gap, or moving off after a
    /// stop) is kept at once, and so is any under a tracker's rule: the spacing meets a heartbeat
    /// with a corner itself (`TrackerSpacing`).
    private func holdsHeartbeat(due: Int?, afterGap: Bool) -> Bool {
        guard configuration.trackerFiltering == .none else { return false }
        return due.map { $0 > 0 } ?? (!since.isEmpty && !afterGap)
    }

    /// The heartbeat at held fix `index`, after the corners it needs (a corner is proof of life
    /// enough, and the fix is then held like any other); the fixes after it are judged from
    /// whatever was kept.
    private mutating func keepHeartbeat(at index: Int) -> [KeptLocation] {
        var rest = Array(since[index...])
        var out = keepCorners(before: rest[0].location)
        if out.isEmpty { out.append(keep(rest.removeFirst().location, .heartbeat)) }
        holdAgain(rest)
        return out + keepCorners()
    }

    /// Keeps held fix `index` as a corner and judges the fixes after it from there.
    private mutating func reanchor(at index: Int) -> KeptLocation {
        let rest = Array(since[(index + 1)...])
        let corner = keep(since[index].location, .deviation)
        holdAgain(rest)
        return corner
    }

    /// Whether the segment from the last kept fix to `point` passes near every held fix: the cone,
    /// or for an end nearer than a held fix (the cone cannot tell), each fix checked against
    /// `max-deviation` itself (the point is kept in any case; this decides whether a corner is).
    private func covers(_ point: (x: Double, y: Double)) -> Bool {
        if cone.admits(point) { return true }
        guard cone.contains(direction: point) else { return false }
        let tolerance = configuration.maxDeviation
        return since.allSatisfy { LocalPlane.distance(from: ($0.x, $0.y), toSegment: (0, 0), point) <= tolerance }
    }

    /// Holds a fix for the deviation check. In a bend, a segment passing on the bend's inside of
    /// the fix (with the fix on its left, in a right turn) gets `turnShare` of the room, in a
    /// `corner` `cornerShare`: the receiver's fixes cut a bend already, and the road is farther
    /// out than they are. Where the fix is known to stand off the road (`offset`, read for a
    /// moving fix with a course), a segment passing on its far side from the road gets no more
    /// than `roadShare` of `max-deviation` less that offset. The first fix after a gap gets
    /// `gapShare` on both sides.
    private mutating func hold(_ fix: Location, _ turn: TurnWatch.Turn, corner: Bool = false, afterGap: Bool = false, offset: Offset?) {
        guard let plane, let last = lastKept else { return }
        let p = plane.project(fix)
        let read = offset != nil && configuration.trackerFiltering == .none
        let tight = cone.tolerance * (corner ? (read ? Self.readCornerShare : Self.cornerShare) : (read ? Self.readTurnShare : Self.turnShare))
        var rooms = (left: turn == .right ? tight : cone.tolerance, right: turn == .left ? tight : cone.tolerance)
        if afterGap {
            rooms = (cone.tolerance * Self.gapShare, cone.tolerance * Self.gapShare)
        } else if let offset, let course = fix.course {
            rooms = ReceiverOffset.rooms(left: rooms.left, right: rooms.right, offset: offset, course: course,
                                         limit: configuration.maxDeviation * Self.roadShare,
                                         least: configuration.maxDeviation * Self.leastShare)
        }
        let reachable = cone.admitsThenAdds(p, left: rooms.left, right: rooms.right)
            && last.time.seconds(to: fix.time) >= configuration.minInterval
        since.append((fix, p.x, p.y, reachable, turn, corner, afterGap, offset))
    }

    /// Judges the held fixes again from the last kept fix (some were taken away).
    private mutating func rehold() {
        let held = since
        since.removeAll(keepingCapacity: true)
        cone = DirectionCone(tolerance: coneTolerance)
        holdAgain(held)
    }

    /// Judges the fixes from `point`, the point the tracker has, where it is not the last one
    /// these triggers kept: under a tracker's rule the spacing may keep another fix for a wish, or
    /// none. Judged from the wish instead, the stretch after the point the tracker has was never
    /// checked: a heartbeat kept a second before a corner stood in for the corner's point, and
    /// the triggers, judging from the corner's fix, saw a straight road after it while the track
    /// from the heartbeat's fix to the next point cut the corner by 12.5 m (an unseen make_drive
    /// seed under DistanceBased). Fixes between `point` and the last kept one that were never
    /// held (before it) are judged with the whole tolerance; only while moving.
    public mutating func rebase(on point: Location) {
        guard motion == .moving, let last = lastKept, point.time != last.time else { return }
        var held = since
        if point.time < last.time {
            held.insert((last, 0, 0, false, .straight, false, false, nil), at: 0)
        } else {
            held.removeAll { $0.location.time <= point.time }
        }
        pendingCorner = nil
        judge(from: point)
        holdAgain(held)
    }

    /// Holds fixes held before again, judged from the last kept fix: their place on its plane and
    /// whether a segment from it reaches them are worked out anew.
    private mutating func holdAgain(_ held: [Held]) {
        for fix in held { hold(fix.location, fix.turn, corner: fix.corner, afterGap: fix.afterGap, offset: fix.offset) }
    }

    private mutating func keep(_ fix: Location, _ trigger: KeepTrigger) -> KeptLocation {
        judge(from: fix)
        return KeptLocation(location: fix, trigger: trigger)
    }

    /// Makes `fix` the point the fixes after it are judged from, none of them held yet.
    private mutating func judge(from fix: Location) {
        lastKept = fix
        since.removeAll(keepingCapacity: true)
        plane = LocalPlane(latitude: fix.latitude, longitude: fix.longitude)
        cone = DirectionCone(tolerance: coneTolerance)
    }
}
