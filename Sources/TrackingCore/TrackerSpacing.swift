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
/// Under `none` every wish is kept at once, exactly as the triggers decide. Memory is bounded: at
/// most `maxHeld` fixes since the last kept point (the oldest are thinned).
public struct TrackerSpacing: Sendable {
    public var filtering: TrackerFiltering {
        didSet { firstAllowedSearch = (nil, 0) }
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
    private var owed: [KeptLocation] = []
    /// When the newest owed wish came (the fix time then).
    private var owedAt: FixTime?
    /// When the owed points may next be decided (a decision that kept nothing is not repeated at once).
    private var nextAttempt: FixTime?
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
    private var meetBy: FixTime?
    /// Fixes since `lastKept`, oldest first.
    private var since: [Location] = []
    /// The index in `since` of the first fix the tracker would store after `lastKept` (none yet:
    /// nil), and how many of `since` were asked. Asked again at every fix, the fixes of the 30 s
    /// before it (300 at 10 Hz, each copied to be asked) were a third of the filter's CPU under
    /// TimeBased; fixes only come after them, so the first stays the first until a point is kept
    /// (`lastKept`), the rule changes (`filtering`) or the fixes are thinned.
    private var firstAllowedSearch: (index: Int?, asked: Int) = (nil, 0)
    private let maxHeld = 2000

    /// Fixes held since the last kept point (none without a rule).
    public var heldFixes: Int { since.count }

    /// Under TimeBased the wait is at least this: the next point can come no sooner than 30 s
    /// after the one chosen, so the choice must see a corner coming. At 10 s, make_drive seed 61
    /// kept a point 25 s before the corner into its tunnel: no fix was allowed until after the
    /// tunnel, and the stored track cut the corner by 265 m. At 15 s, twelve seeds of make_drive's
    /// route were within 84 m (the same at 20 s, which doubled the distance on a random road).
    static let timeBasedLookahead = 15.0

    /// The wait in force: `lookahead`, or `timeBasedLookahead` under TimeBased.
    private var wait: Double { filtering == .timeBased ? max(lookahead, Self.timeBasedLookahead) : lookahead }

    public init(filtering: TrackerFiltering = .none, lookahead: Double = 10) {
        self.filtering = filtering
        self.lookahead = lookahead
    }

    /// Starts from a point the tracker already has (the last one sent before a restart), when it
    /// is newer than the one in hand.
    public mutating func resume(after location: Location) {
        guard lastKept.map({ $0.time < location.time }) ?? true else { return }
        lastKept = location
        since.removeAll { $0.time <= location.time }
    }

    /// One fix that passed the gate and what the triggers kept for it; returns what to keep.
    public mutating func process(_ fix: Location, kept: [KeptLocation]) -> [KeptLocation] {
        guard filtering != .none else {
            if let last = kept.last { keep(last.location) }
            return kept
        }
        since.append(fix)
        if since.count > maxHeld {
            // Thin the oldest half: they matter least for the choice still to come.
            let half = since.count / 2
            since = since[..<half].enumerated().filter { $0.offset % 2 == 0 }.map(\.element) + since[half...]
            firstAllowedSearch = (nil, 0)
        }
        var out: [KeptLocation] = []
        for wish in kept { out += consider(wish) }
        if let held = tentative, released(held, at: fix) {
            tentative = nil
            keep(held.location)
            out.append(held)
        }
        if !owed.isEmpty, let choice = substitute(upTo: fix, now: false) { out += choice }
        return out
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
            keep(held.location)
            out.append(held)
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
        if let held = tentative {
            if filtering.stores(wish.location, after: held.location) {
                // The held point and this one both fit: keep the held one, hold this one.
                tentative = wish
                keep(held.location)
                return [held]
            }
            // Too close to the held point (a tight corner, a U-turn): neither is kept as it is; the
            // best fix the tracker would store after the last kept point is chosen for both.
            tentative = nil
            owed = [held, wish]
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

    /// When its time has come, keeps the points that best represent the fixes since the last kept
    /// point under the tracker's rule (`SpacedPath`); what is owed before the last of them is met.
    private mutating func substitute(upTo fix: Location, now: Bool) -> [KeptLocation]? {
        guard let origin = lastKept, let firstAllowed = firstAllowedIndex() else { return nil }
        // Not again before the wait since the last try: asked first, before the places owed are
        // sorted out (most fixes while something is owed end here).
        if !now, let next = nextAttempt, fix.time < next { return nil }
        // A place owed: the track must reach the vehicle's place. A stop, a departure, the end:
        // the newest fix, as soon as the rule allows. A heartbeat: any fix since it was due
        // (proof of life, and the vehicle's place then), so a corner there can meet it. Under
        // TimeBased a stop the vehicle has left by the time the rule allows a point is met the
        // same way, once the road after the first allowed fix is seen: the newest fix is then no
        // place it stood, and it forbade the corner after it for 30 s (a suburb's stop-and-go
        // of our own: 152.6 m from the true path; 66.7 m, the best 62.6 m). Its fixes where it
        // stood are on the chosen track (`SpacedPath` measures from their mean).
        let due = PlacesDue(owed)
        guard let left = leftTheStop(due.stop, at: fix, now: now) else { return nil }
        let atOnce = due.atOnce(left: left)
        if !now {
            // Allowed fixes for `lookahead`, and `lookahead` past the last wish owed: the choice
            // needs to see where the road goes after it, or its last point cannot be followed.
            // The same past a heartbeat, which may be met by a fix before the newest.
            if let first = due.earliest {
                guard atOnce || first.seconds(to: fix.time) >= wait else { return nil }
                // Under TimeBased a corner owed beside a heartbeat too: the point chosen for
                // both forbids 30 s, so the road after the corner must be seen first.
                guard atOnce || filtering != .timeBased || settled(at: fix) else { return nil }
                guard !left || (since[firstAllowed].time.seconds(to: fix.time) >= wait && settled(at: fix)) else { return nil }
            } else {
                guard since[firstAllowed].time.seconds(to: fix.time) >= wait
                    && (settled(at: fix) || overdue(at: fix)) else { return nil }
            }
        }
        nextAttempt = fix.time.adding(seconds: wait)
        // What the choice must meet, now that it is made.
        let owing = PlacesOwed(due)
        var meeting: ((Location) -> Bool)?
        let window = meetBy ?? FixTime(nanosecondsSince1970: .max)
        if let latest = due.latest { meeting = atOnce ? { _ in false } : { $0.time >= latest && $0.time <= window } }
        let mustReachEnd = meeting != nil
        // Under a distance rule a choice keeps at most one point more than the wishes it meets:
        // one may be needed to go round wishes the rule forbids together, and more bought only
        // a smaller excess over the tolerance (`SpacedPath.choice(_:atMost:tolerance:)`). Under
        // TimeBased the rule keeps the count down itself.
        let path = SpacedPath(origin: origin, fixes: since, filtering: filtering, tolerance: tolerance, stoppedSpeed: stoppedSpeed,
                              corners: Set(owed.filter { $0.trigger.isCorner }.map(\.location.time)),
                              mostPoints: filtering == .timeBased ? nil : owed.count + 1)
        let placed = path.points(meeting: meeting, endMeets: atOnce || (since.last.map { $0.time <= window } ?? true))
        let corners = atOnce && !now ? cornersBeforeAStop(path, instead: placed, at: fix, due: due) : []
        let decidingCorners = !corners.isEmpty
        let chosen = decidingCorners ? corners : placed
        guard !chosen.isEmpty else {
            // The straight line from the last kept point still represents the fixes: nothing
            // is needed for the corners owed; a stop or heartbeat waits until it can be kept.
            if !mustReachEnd { owed.removeAll() }
            return nil
        }
        var kept = chosen
        var again: FixTime?
        switch deferral(of: chosen, at: fix, atOnce: (atOnce && !decidingCorners) || now, owing: decidingCorners ? .nothing : owing, firstAllowed: since[firstAllowed]) {
        case .none: break
        case let .last(until):
            kept.removeLast()
            again = until
        case let .all(until):
            nextAttempt = until
            if owing == .heartbeats { meetBy = chosen.last?.time }
            return nil
        case let .after(seen):
            kept.removeAll { $0.time > seen }
            guard !kept.isEmpty else { return nil }
        }
        var out: [KeptLocation] = []
        for point in kept {
            let trigger = owed.last { $0.location.time <= point.time }?.trigger ?? owed.first?.trigger ?? .deviation
            out.append(KeptLocation(location: point, trigger: trigger))
        }
        let newest = kept[kept.count - 1]
        owed.removeAll { $0.location.time <= newest.time }
        if mustReachEnd, newest.time == since.last?.time { owed.removeAll() }
        keep(newest)
        nextAttempt = again
        return out
    }

    /// Whether the vehicle has left the stop owed, which fell due at `stop` (false: none is
    /// owed), or nil while the stop waits. Under TimeBased it has left when the newest fix moves.
    ///
    /// Under a distance rule a stop is the vehicle's place only where it stays: at a red light
    /// its point forbade the U-turn after it (the first fix 30 m on was 17 m off the apex; an
    /// unseen random road at 1 Hz, 17.7 m from the true path, 14.0 m now). So a stop owed waits
    /// while the vehicle stands, at most `maxStopHold` (then its place is kept at once, as a
    /// parked vehicle's must be), and once the vehicle has left, until it has moved for the wait;
    /// then it is met as a heartbeat is, by any fix since it fell due, with the road after it
    /// seen. At the end of the fixes (`now`) it is decided at once, where the vehicle was last.
    private func leftTheStop(_ stop: FixTime?, at fix: Location, now: Bool) -> Bool? {
        guard let stop else { return false }
        if filtering == .timeBased { return !fix.stands(atMost: stoppedSpeed) }
        if now { return false }
        if fix.stands(atMost: stoppedSpeed), stop.seconds(to: fix.time) >= Self.maxStopHold { return false }
        if let stood = since.last(where: { $0.stands(atMost: stoppedSpeed) }), stood.time.seconds(to: fix.time) < wait { return nil }
        return true
    }

    /// Whether no wish has been owed for the wait: the road after the last one is seen.
    private func settled(at fix: Location) -> Bool {
        owedAt.map { $0.seconds(to: fix.time) >= wait } ?? true
    }

    /// Under a distance rule, whether the oldest corner owed has waited `maxOwed` waits: on a
    /// twisty road each new corner put the choice off again, and points went out a minute after
    /// their fix, chosen among fixes thinned to one every 1.8 s (a random road of our own at
    /// 5 Hz). Then the points whose road is seen are kept and the rest stay owed.
    private func overdue(at fix: Location) -> Bool {
        filtering != .timeBased && (owed.first.map { $0.location.time.seconds(to: fix.time) >= Self.maxOwed * wait } ?? false)
    }
    static let maxOwed = 3.0

    /// Under TimeBased, where the vehicle stands at a stop owed after corners: the points for the
    /// corners alone, as if nothing else were owed, when they keep the fixes nearer than `placed`
    /// (the stop at the newest fix, and what the rule allows before it) by more than the
    /// tolerance; else none. The stop is kept as well from a standing fix 30 s on, and its point
    /// now would have forbidden the corners just before it.
    private func cornersBeforeAStop(_ path: SpacedPath, instead placed: [Location], at fix: Location, due: PlacesDue) -> [Location] {
        guard filtering == .timeBased, fix.stands(atMost: stoppedSpeed), let newest = since.last,
              due.onlyStops, owed.contains(where: { $0.trigger.isCorner }) else { return [] }
        let corners = path.points()
        guard !corners.isEmpty,
              path.largestDistance(through: corners + [newest]) + tolerance < path.largestDistance(through: placed) else { return [] }
        return corners
    }

    /// What of a choice waits for more road, and until when.
    private enum Deferral {
        /// Nothing: all of it is kept now.
        case none
        /// The last point, chosen again then; the points before it are kept now.
        case last(until: FixTime)
        /// All of it.
        case all(until: FixTime)
        /// The points after this time, whose road is not yet seen: they stay owed.
        case after(FixTime)
    }

    /// Under TimeBased the last point chosen forbids any other for 30 s: while it is younger than
    /// that, the road it forbids is not all seen, and it is chosen again once it is (`maxDefer`),
    /// or, of several chosen together, once its 30 s have come: the points before it stand. A
    /// heartbeat chosen alone is chosen again once, among fixes no later than the first choice
    /// (`meetBy`), so one due every few seconds is not put off again and again; any other place
    /// owed is kept once chosen, and one owed at once (a stop where the vehicle stands, the end)
    /// is never put off. Under a distance rule, corners alone chosen while more are still coming
    /// (`overdue`): the points whose road after them is not yet seen.
    private func deferral(of chosen: [Location], at fix: Location, atOnce: Bool, owing: PlacesOwed, firstAllowed: Location) -> Deferral {
        guard filtering == .timeBased else {
            return !atOnce && owing == .nothing && !settled(at: fix) ? .after(fix.time.adding(seconds: -wait)) : .none
        }
        guard !atOnce, let last = chosen.last,
              last.time.seconds(to: fix.time) < TrackerFiltering.interval else { return .none }
        let until = last.time.adding(seconds: TrackerFiltering.interval)
        if chosen.count > 1 { return .last(until: until) }
        switch owing {
        case .nothing: return firstAllowed.time.seconds(to: fix.time) < Self.maxDefer ? .all(until: until) : .none
        case .heartbeats: return meetBy == nil ? .all(until: until) : .none
        case .others: return .none
        }
    }

    /// The places owed (not corners), as `deferral` weighs them.
    private enum PlacesOwed {
        case nothing, heartbeats, others

        init(_ due: PlacesDue) {
            self = due.earliest == nil ? .nothing : due.stop == nil && !due.other ? .heartbeats : .others
        }
    }

    private mutating func keep(_ location: Location) {
        lastKept = location
        meetBy = nil
        since.removeAll { $0.time <= location.time }
    }

    /// The index in `since` of the first fix the tracker would store after `lastKept`.
    private mutating func firstAllowedIndex() -> Int? {
        guard let origin = lastKept else { return nil }
        if firstAllowedSearch.index == nil {
            firstAllowedSearch.index = since[firstAllowedSearch.asked...].firstIndex { filtering.stores($0, after: origin) }
            firstAllowedSearch.asked = since.count
        }
        return firstAllowedSearch.index
    }
}

