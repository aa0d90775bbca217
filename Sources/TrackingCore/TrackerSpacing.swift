/// The tracker's `PositionFiltering` as a constraint on what the filter keeps: nothing is kept
/// that the tracker would not store, and within the constraint the kept points are chosen so that
/// the stored track stays close to the path.
///
/// The motion triggers decide where the track needs a point (a corner, a stop, a heartbeat). A
/// wish the tracker would store after the last kept point is held as `tentative` for `lookahead`
/// (a corner under a distance rule until the vehicle is clear of it: the next corner's wish comes
/// only after the fixes that reveal it). A wish the tracker would not store — or one too close to
/// the held one, as at a tight corner or a U-turn — is held back (counted in `withheld`) and owed:
/// once allowed fixes have come for `lookahead` (`timeBasedLookahead` under TimeBased; a
/// heartbeat: that long after it was due; a stop: at once, but under a distance rule only once
/// the vehicle has stood there a minute, or has left it (`leftTheStop`); the end: at once),
/// `SpacedPath` chooses the points among all fixes since the last kept one, and each is kept with
/// the trigger owed at its time. Choosing among the allowed fixes, not merely taking the first one
/// allowed, is what keeps a TimeBased track near the road. A heartbeat is met by any fix since it
/// was due, not only the newest: one due just before a corner, too close to it for the rule, is
/// met by the corner.
///
/// A stop or a departure where the last kept point stands is met by it (`marksThePlace`); under a
/// distance rule a corner wished just after a heartbeat held is weighed with it (`mayMeet`); a
/// heartbeat wished just before a stop is met by the stop's point (`meetHeartbeats`); under
/// TimeBased a halt, a stop the vehicle moves on from within the wait, is not met (`passHalts`).
///
/// Under `none` every wish is kept at once, exactly as the triggers decide. Memory is bounded: at
/// most `maxHeld` fixes since the last kept point (the oldest are thinned).
public struct TrackerSpacing: Sendable {
    public var filtering: TrackerFiltering {
        didSet {
            firstAllowedSearch = (nil, 0)
            haltPassed = nil
        }
    }
    /// Seconds of fix time to wait among allowed fixes for a better one before keeping one.
    public var lookahead: Double
    /// `max-deviation`: how far the stored track may pass from the fixes when the rule allows it.
    public var tolerance: Double = 10
    /// `stopped-speed`: a fix no faster than this is the receiver's drift about where the vehicle stands.
    public var stoppedSpeed: Double = 1
    /// The last point kept (and so sent): the tracker's last stored position, as far as it is known.
    public private(set) var lastKept: Location? {
        didSet { firstAllowedSearch = (nil, 0) }
    }
    /// Wishes of the triggers the constraint held back.
    public private(set) var withheld = 0

    /// The triggers' wishes not yet met, oldest first.
    var owed: [KeptLocation] = [] {
        didSet { if owed.isEmpty { heartbeatWeighed = false } }
    }
    /// Whether what is owed began as a heartbeat held and a corner after it the tracker would
    /// store together (`mayMeet`): the choice then keeps no more points than the two.
    var heartbeatWeighed = false
    /// The last halt passed over (`passHalts`): when its stop was wished and the fix at which
    /// the vehicle moved on; until its departure or the next stop is wished.
    var haltPassed: (stop: FixTime, left: FixTime)?
    /// When the newest owed wish came (the fix time then).
    var owedAt: FixTime?
    /// When the owed points may next be decided (a decision that kept nothing is not repeated at once).
    var nextAttempt: FixTime?
    /// Under a distance rule, the point a choice would have kept last with the stretch after it
    /// open, put off until a fix comes that the tracker would store after it (`distanceDeferral`):
    /// the choice is not made again before then.
    var awaitingRoadAfter: Location?
    /// A wish the tracker would store, held for `lookahead` before it is kept: when the next wish
    /// comes too close to it, the two are weighed together (see `consider`).
    private var tentative: KeptLocation? {
        didSet { clearSince = nil }
    }
    /// Since when the fixes are where the tracker would store a point after the held one.
    private var clearSince: FixTime?
    /// The longest a corner point is held, seconds.
    static let maxHold = 120.0
    /// The longest a stop's point waits under a distance rule while the vehicle stands there,
    /// seconds (`leftTheStop`): longer, it is parked, and the tracker must have its place.
    static let maxStopHold = 60.0
    /// Under TimeBased a point forbids any other for 30 s: a choice whose last point is younger
    /// than that is made again once the road after it is seen (a corner 15 s past a roundabout
    /// was cut by 150 m when the roundabout's exit was chosen before the corner came, a random
    /// road of our own), but not once the first allowed fix is this old, so the track goes on.
    /// Of several points chosen together the earlier ones stand and only the last is chosen
    /// again: a choice made late (a heartbeat owed, a loop) kept a point in a loop's first
    /// seconds and forbade the rest of it (a random road of our own at 5 Hz, 214 m from the
    /// true path; 80.6 m, the best 73.5 m).
    static let maxDefer = 45.0
    /// A heartbeat chosen and put off until its 30 s are seen is met again by a fix no later
    /// than the one chosen: choosing again may find the corner it would cut, but must not put
    /// the heartbeat later each time (one due every second came only every 90 s).
    var meetBy: FixTime?
    /// Fixes since `lastKept`, oldest first.
    private(set) var since: [Location] = []
    /// Where fixes in `since` stand off the road, by fix time, where the triggers read it.
    private(set) var offsets: [FixTime: (x: Double, y: Double)] = [:]
    /// The index in `since` of the first fix the tracker would store after `lastKept` (none yet:
    /// nil), and how many of `since` were asked. Asked again at every fix, the fixes of the 30 s
    /// before it (300 at 10 Hz, each copied to be asked) were a third of the filter's CPU under
    /// TimeBased; fixes only come after them, so the first stays the first until a point is kept
    /// (`lastKept`), the rule changes (`filtering`) or the fixes are thinned.
    private var firstAllowedSearch: (index: Int?, asked: Int) = (nil, 0)
    private let maxHeld = 2000

    /// The point the tracker has, when nothing is held or owed after it (under a rule): what the
    /// triggers judge the road after it from (`MotionTriggers.rebase(on:)`).
    public var settledPoint: Location? {
        filtering != .none && tentative == nil && owed.isEmpty ? lastKept : nil
    }

    /// Fixes held since the last kept point (none without a rule).
    public var heldFixes: Int { since.count }

    /// Under TimeBased the wait is at least this: the next point can come no sooner than 30 s
    /// after the one chosen, so the choice must see a corner coming. At 10 s, make_drive seed 61
    /// kept a point 25 s before the corner into its tunnel: no fix was allowed until after the
    /// tunnel, and the stored track cut the corner by 265 m. At 15 s, twelve seeds of make_drive's
    /// route were within 84 m (the same at 20 s, which doubled the distance on a random road).
    static let timeBasedLookahead = 15.0

    /// The wait in force: `lookahead`, or `timeBasedLookahead` under TimeBased.
    var wait: Double { filtering == .timeBased ? max(lookahead, Self.timeBasedLookahead) : lookahead }

    public init(filtering: TrackerFiltering = .none, lookahead: Double = 10) {
        self.filtering = filtering
        self.lookahead = lookahead
    }

    /// Starts from a point the tracker already has (the last one sent before a restart), when it
    /// is newer than the one in hand.
    public mutating func resume(after location: Location) {
        guard lastKept.map({ $0.time < location.time }) ?? true else { return }
        lastKept = location
        forget(through: location.time)
    }

    /// One fix that passed the gate and what the triggers kept for it; returns what to keep.
    public mutating func process(_ fix: Location, kept: [KeptLocation], offset: (x: Double, y: Double)? = nil) -> [KeptLocation] {
        guard filtering != .none else {
            if let last = kept.last { keep(last.location) }
            return kept
        }
        since.append(fix)
        if let offset, filtering != .timeBased { offsets[fix.time] = offset }
        if since.count > maxHeld {
            // Thin the oldest half: they matter least for the choice still to come.
            let half = since.count / 2
            since = since[..<half].enumerated().filter { $0.offset % 2 == 0 }.map(\.element) + since[half...]
            let held = Set(since.map(\.time))
            offsets = offsets.filter { held.contains($0.key) }
            firstAllowedSearch = (nil, 0)
        }
        var out: [KeptLocation] = []
        for wish in kept { out += consider(wish) }
        passHalts(at: fix)
        if let held = tentative, released(held, at: fix) {
            tentative = nil
            out.append(keepHeld(held))
        }
        if !owed.isEmpty, let choice = substitute(upTo: fix, now: false) { out += choice }
        return out
    }

    /// Keeps the point held, a stop where the vehicle stood (`placeStood`).
    private mutating func keepHeld(_ held: KeptLocation) -> KeptLocation {
        var point = held
        if held.trigger == .stop, let previous = lastKept, let place = placeStood(at: held.location, after: previous) {
            point.location = place
        }
        keep(point.location)
        return point
    }

    /// At the end of the stream: the triggers' final point, or the best allowed point owed.
    public mutating func finish(_ final: [KeptLocation]) -> [KeptLocation] {
        var out: [KeptLocation] = []
        for wish in final { out += consider(wish) }
        return out + pause()
    }

    /// The fixes stopped coming (the receiver went away, gpsd fell silent): the held point and
    /// what is owed are decided now with what is in hand, so the tracker has the last place.
    public mutating func pause() -> [KeptLocation] {
        var out: [KeptLocation] = []
        if let held = tentative {
            tentative = nil
            out.append(keepHeld(held))
        }
        if filtering != .none, !owed.isEmpty, let last = since.last, let choice = substitute(upTo: last, now: true) { out += choice }
        return out
    }

    /// Whether the held point can no longer meet a wish too close to it: a corner wish comes after
    /// the fixes that reveal it, so under a distance rule the point is held until the vehicle has
    /// been where the tracker would store a point for `lookahead`; under TimeBased a corner or a
    /// heartbeat for the 30 s in which it forbids any other point (a corner within them is
    /// weighed against it, not cut: a heartbeat 14 s before a highway's exit cut it by 119 m);
    /// under a distance rule a stop too, for at most `maxStopHold` (`leftTheStop`); for the first
    /// point, or a stop under TimeBased, the wait (`wait`) after it.
    private mutating func released(_ held: KeptLocation, at fix: Location) -> Bool {
        let elapsed = held.location.time.seconds(to: fix.time)
        let corner = held.trigger.isCorner
        let stop = held.trigger == .stop
        let hold = filtering == .timeBased && (corner || held.trigger == .heartbeat) ? max(wait, TrackerFiltering.interval) : wait
        guard elapsed >= hold else { return false }
        guard filtering != .timeBased, corner || stop, elapsed < (stop ? Self.maxStopHold : Self.maxHold) else { return true }
        guard filtering.stores(fix, after: held.location) else {
            clearSince = nil
            return false
        }
        let since = clearSince ?? fix.time
        clearSince = since
        return since.seconds(to: fix.time) >= wait
    }

    /// A wish of the triggers: held as `tentative` when the tracker would store it and nothing is
    /// owed before it, else owed.
    private mutating func consider(_ wish: KeptLocation) -> [KeptLocation] {
        // A wish from before the last point kept (the triggers' own corner search reaches back
        // further than the spacing's choice) cannot be added without reordering the track.
        if let last = lastKept, wish.location.time <= last.time {
            withheld += 1
            return []
        }
        // Without a rule, and for the very first point (nothing to be too close to), at once.
        guard filtering != .none, lastKept != nil || tentative != nil || !owed.isEmpty else {
            keep(wish.location)
            return [wish]
        }
        // The departure from a halt passed over is no place either (`passHalts`): the last fix
        // before the vehicle moved, wished as it pulls away.
        if wish.trigger == .departure, let halt = haltPassed, wish.location.time >= halt.stop,
           halt.left.seconds(to: wish.location.time) <= wait {
            haltPassed = nil
            withheld += 1
            return []
        }
        if wish.trigger == .stop { haltPassed = nil }
        if marksThePlace(of: wish) {
            withheld += 1
            return []
        }
        if wish.trigger == .stop { meetHeartbeats(by: wish) }
        if let held = tentative {
            let apart = filtering.stores(wish.location, after: held.location)
            if apart, !mayMeet(held, by: wish) {
                // The held point and this one both fit: keep the held one, hold this one.
                tentative = wish
                keep(held.location)
                return [held]
            }
            // Too close to the held point (a tight corner, a U-turn), or a corner that may meet the
            // heartbeat held: neither is kept as it is; the best fix the tracker would store after
            // the last kept point is chosen for both.
            tentative = nil
            owed = [held, wish]
            heartbeatWeighed = apart
            if wish.trigger != .heartbeat { owedAt = since.last?.time }
            withheld += 1
            return []
        }
        if owed.isEmpty, filtering.stores(wish.location, after: lastKept) {
            tentative = wish
            return []
        }
        owed.append(wish)
        if wish.trigger != .heartbeat { owedAt = since.last?.time }
        withheld += 1
        return []
    }

    /// Whether the last point kept already marks the place of a stop or a departure wished for:
    /// nothing is held or owed after it, every fix since lies within reach of it (the tolerance,
    /// or both accuracies summed, as the triggers weigh a departure), and a departure comes
    /// within `maxStopHold` of it (a halt in traffic; after a longer stop when the vehicle left
    /// is news). Its own point would add nothing the tracker lacks.
    ///
    /// Under TimeBased such a point forbade the road for 30 s as the vehicle pulled away: at a
    /// red light on a random road of our own (5 Hz), a second point at the light and one for the
    /// departure put the next points 30 s apart through an S-curve and two corners, 98.8 m from
    /// the true path (27.5 m now; the best any stored track can do, 23.6 m). Under a distance
    /// rule the tracker would not store it; owed, it was met by a fix chosen once the vehicle
    /// had left, a point more (on 49 drives, 8 fewer under DistanceBased and 9 under
    /// AccuracyBased now, each track as near the true path as its bound asks where it was).
    private func marksThePlace(of wish: KeptLocation) -> Bool {
        guard wish.trigger == .stop || wish.trigger == .departure, tentative == nil, owed.isEmpty, let last = lastKept else { return false }
        if wish.trigger == .departure, last.time.seconds(to: wish.location.time) > Self.maxStopHold { return false }
        let reach = max(tolerance, last.accuracies(with: wish.location))
        return Geodesy.distance(last, wish.location) <= reach && since.allSatisfy { Geodesy.distance(last, $0) <= reach }
    }

    /// Whether `wish`, a corner wished `lookahead` or less after the heartbeat `held`, is weighed
    /// with it, as two wishes too close for the rule are: the choice meets the heartbeat by any
    /// fix since it was due, so where one point represents the fixes the corner stands in for
    /// it, as without a rule (`MotionTriggers`' grace). Under a distance rule both were kept
    /// whenever they lay far enough apart: an unseen random road (5 Hz) kept 41 points under
    /// DistanceBased against 39 without a rule (40 now; on 57 drives 6 points fewer under
    /// DistanceBased and 4 under AccuracyBased, every track within its bound as before). Not
    /// under TimeBased, where a corner within the heartbeat's 30 s is too close for the rule
    /// anyway.
    private func mayMeet(_ held: KeptLocation, by wish: KeptLocation) -> Bool {
        filtering != .timeBased && held.trigger == .heartbeat && wish.trigger.isCorner
            && held.location.time.seconds(to: wish.location.time) <= lookahead
    }

    /// A heartbeat wished `lookahead` or less before `stop`, held or owed, is met by the stop's
    /// point: where the vehicle stands is proof of life, as without a rule, where a stop within
    /// the triggers' grace stands in for the heartbeat (`MotionTriggers`). Under a rule the
    /// triggers have no grace, and a heartbeat wished a second before a red light's stop was
    /// weighed with it as two places owed: a point on the approach and one where the vehicle
    /// was once it had left, instead of one where it stood (an unseen random road at 5 Hz under
    /// AccuracyBased, 22 points against 21 without a rule; 21 now). Of 61 drives in every mode
    /// one other track changed: random road 303 under DistanceBased, a point more (29, against
    /// 32 without a rule), for in its stop-and-go the first stop now has a point where the
    /// vehicle stood. (An owed heartbeat whose choice was put off, `meetBy`, is never met here:
    /// that choice comes `wait` after it, later than a stop `lookahead` after it.)
    private mutating func meetHeartbeats(by stop: KeptLocation) {
        let within = lookahead
        func met(_ wish: KeptLocation) -> Bool {
            wish.trigger == .heartbeat && wish.location.time.seconds(to: stop.location.time) <= within
        }
        if let held = tentative, met(held) {
            tentative = nil
            withheld += 1
        }
        owed.removeAll(where: met)
    }

    /// Under TimeBased, a stop the vehicle moves on from less than `wait` after it was wished
    /// (standing some 20 s at most, with the triggers' `stop-delay`) was a halt, a red light or
    /// stop-and-go, not a place it stays: its point is not kept, held or owed, and the wish
    /// counts as withheld (an owed one counted when it was owed). The point would add nothing
    /// the track lacks (the road runs through where it halted) and forbid 30 s of the road it
    /// takes next: at a red light before an S-curve, a random road of our own at 1 Hz, the
    /// point at the light put the next 30 s on, across the curve, 52.0 m from the true path
    /// (38.3 m without it, the best 25.0 m); another's, before a curve, 97.7 m (63.4 m, the
    /// best 59.6 m). Of 65 recorded tracks under TimeBased, 11 came more than a metre
    /// nearer the true path and 6 went farther, 861 points to 843. Counting a stop left within
    /// 30 s (the point's own span) as a halt instead sent two random roads at 5 Hz farther
    /// (64.4 -> 132.6 and 58.3 -> 121.1 m). A stop the vehicle stays at is owed as before.
    ///
    /// The departure the triggers then wish (they judge from the point before the halt, far
    /// from it) is passed over too: kept, it forbade the curve the vehicle pulled into (a
    /// random road of our own at 1 Hz: 86.4 m from the true path, 55.2 m without it, the best
    /// 54.7 m; on the 65 tracks 5 points fewer, random road 41302 at 5 Hz 110.5 -> 113.3 m).
    private mutating func passHalts(at fix: Location) {
        guard filtering == .timeBased, !fix.stands(atMost: stoppedSpeed) else { return }
        let within = wait
        func halt(_ wish: KeptLocation) -> Bool { wish.trigger == .stop && wish.location.time.seconds(to: fix.time) < within }
        if let held = tentative, halt(held) {
            tentative = nil
            withheld += 1
            haltPassed = (held.location.time, fix.time)
        }
        if let stop = owed.first(where: halt) { haltPassed = (stop.location.time, fix.time) }
        owed.removeAll(where: halt)
    }

    /// Under a distance rule, where the vehicle stood at `fix`, when it stood there: of the
    /// standing fixes held around it, the one nearest their mean that comes after `previous` and
    /// that the tracker would store after it. One fix is the receiver's drift at that second,
    /// and under a distance rule the stop's point is the only one there: at the end of a random
    /// road of our own (5 Hz, both rules) the parked vehicle's last fix, kept as its place, lay
    /// 12 m from where it stood, and so did the stored track's end (7.9 m from the true path
    /// with the place); an unseen make_drive seed's red light, kept at the fix the stop was
    /// wished at, set its track 12.2 m from the true path under both rules (11.7 and 11.5 m).
    /// Not under TimeBased, where a place seconds earlier than the fix brings the next heartbeat
    /// due as much sooner: at make_drive's red light one point more on every seed, the track
    /// 80 m off anyway.
    func placeStood(at fix: Location, after previous: Location) -> Location? {
        guard filtering != .timeBased, fix.stands(atMost: stoppedSpeed),
              let index = since.lastIndex(where: { $0.time == fix.time }) else { return nil }
        var (first, last) = (index, index)
        while first > since.startIndex, since[first - 1].stands(atMost: stoppedSpeed) { first -= 1 }
        while last + 1 < since.endIndex, since[last + 1].stands(atMost: stoppedSpeed) { last += 1 }
        guard last > first else { return nil }
        let run = since[first...last]
        var place = ParkedPlace(kept: run[first])
        for standing in run.dropFirst() { place.add(standing) }
        return run.filter { $0.time > previous.time && filtering.stores($0, after: previous) }.min { place.offset(of: $0) < place.offset(of: $1) }
    }

    mutating func keep(_ location: Location) {
        lastKept = location
        meetBy = nil
        awaitingRoadAfter = nil
        forget(through: location.time)
    }

    /// Forgets the fixes up to `time` (kept, or with the tracker already), and where they stood.
    private mutating func forget(through time: FixTime) {
        since.removeAll { $0.time <= time }
        offsets = offsets.filter { $0.key > time }
    }

    /// The index in `since` of the first fix the tracker would store after `lastKept`.
    mutating func firstAllowedIndex() -> Int? {
        guard let origin = lastKept else { return nil }
        if firstAllowedSearch.index == nil {
            firstAllowedSearch.index = since[firstAllowedSearch.asked...].firstIndex { filtering.stores($0, after: origin) }
            firstAllowedSearch.asked = since.count
        }
        return firstAllowedSearch.index
    }
}

