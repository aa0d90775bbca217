/// How the spacing meets what is owed: when the choice is made, what it keeps, and what of it
/// waits for more road.
extension TrackerSpacing {
    /// When its time has come, keeps the points that best represent the fixes since the last kept
    /// point under the tracker's rule (`SpacedPath`); what is owed before the last of them is met.
    mutating func substitute(upTo fix: Location, now: Bool) -> [KeptLocation]? {
        guard let origin = lastKept, let firstAllowed = firstAllowedIndex() else { return nil }
        // Not again before the wait since the last try: asked first, before the places owed are
        // sorted out (most fixes while something is owed end here).
        if !now, let next = nextAttempt, fix.time < next { return nil }
        if !now, let awaited = awaitingRoadAfter {
            guard filtering.stores(fix, after: awaited) || overdue(at: fix) else { return nil }
            awaitingRoadAfter = nil
        }
        // A place owed: the track must reach the vehicle's place. A stop, a departure, the end:
        // the newest fix, as soon as the rule allows. A heartbeat: any fix since it was due
        // (proof of life, and the vehicle's place then), so a corner there can meet it. Under
        // TimeBased a stop the vehicle has left by the time the rule allows a point is met the
        // same way, once the road after the first allowed fix is seen: the newest fix is then no
        // place it stood, and it forbade the corner after it for 30 s (a suburb's stop-and-go
        // of our own: 152.6 m from the true path; 66.7 m, the best 62.6 m). Its fixes where it
        // stood are on the chosen track (`SpacedPath` measures from their mean).
        let due = PlacesDue(owed)
        // Under TimeBased a stop owed may yet be a halt (`passHalts`): nothing is chosen while
        // the vehicle stands within the wait after it.
        if filtering == .timeBased, !now, let stop = due.stop, fix.stands(atMost: stoppedSpeed), stop.seconds(to: fix.time) < wait { return nil }
        guard let left = leftTheStop(due.stop, at: fix, now: now) else { return nil }
        let atOnce = due.atOnce(left: left)
        guard now || seenEnough(at: fix, due: due, left: left, atOnce: atOnce, firstAllowed: since[firstAllowed]) else { return nil }
        nextAttempt = fix.time.adding(seconds: wait)
        let choice = choose(after: origin, due: due, atOnce: atOnce, at: fix, now: now)
        guard !choice.points.isEmpty else {
            // The straight line from the last kept point still represents the fixes: nothing
            // is needed for the corners owed; a stop or heartbeat waits until it can be kept.
            if !choice.mustReachEnd { owed.removeAll() }
            return nil
        }
        var kept = choice.points
        var again: FixTime?
        let owing = choice.cornersAlone ? .nothing : PlacesOwed(due)
        switch deferral(of: choice.points, at: fix, atOnce: (atOnce && !choice.cornersAlone) || now, owing: owing, placesUntil: due.latest,
                         firstAllowed: since[firstAllowed]) {
        case .none: break
        case let .last(until):
            kept.removeLast()
            again = until
        case let .all(until):
            nextAttempt = until
            if owing == .heartbeats { meetBy = choice.points.last?.time }
            return nil
        case let .after(seen):
            kept.removeAll { $0.time > seen }
            guard !kept.isEmpty else { return nil }
        case let .untilStorable(last):
            kept.removeLast()
            let out = kept.isEmpty ? nil : commit(kept, mustReachEnd: choice.mustReachEnd, nextAttempt: nil)
            nextAttempt = nil
            awaitingRoadAfter = last
            return out
        }
        return commit(kept, mustReachEnd: choice.mustReachEnd, nextAttempt: again)
    }

    /// Whether enough road is seen at `fix` for the choice (before the end of the fixes): allowed
    /// fixes for `lookahead`, and `lookahead` past the last wish owed: the choice needs to see
    /// where the road goes after it, or its last point cannot be followed. The same past a
    /// heartbeat, which may be met by a fix before the newest.
    private func seenEnough(at fix: Location, due: PlacesDue, left: Bool, atOnce: Bool, firstAllowed: Location) -> Bool {
        let allowedFor = firstAllowed.time.seconds(to: fix.time)
        guard let first = due.earliest else { return allowedFor >= wait && (settled(at: fix) || overdue(at: fix)) }
        guard atOnce || first.seconds(to: fix.time) >= wait else { return false }
        // Under TimeBased a corner owed beside a heartbeat too: the point chosen for both forbids
        // 30 s, so the road after the corner must be seen first.
        guard atOnce || filtering != .timeBased || settled(at: fix) else { return false }
        return !left || (allowedFor >= wait && settled(at: fix))
    }

    /// The points a choice keeps, before any of them waits for more road (`deferral`).
    private struct Choice {
        var points: [Location]
        /// Whether a place is owed that the track must reach (then a choice of nothing leaves
        /// what is owed in place).
        var mustReachEnd: Bool
        /// Whether the points are the corners before a stop, chosen alone (`cornersBeforeAStop`).
        var cornersAlone: Bool
    }

    /// Chooses among the fixes since `origin` (`SpacedPath`) what meets the places owed.
    private func choose(after origin: Location, due: PlacesDue, atOnce: Bool, at fix: Location, now: Bool) -> Choice {
        // What the choice must meet, now that it is made.
        var meeting: ((Location) -> Bool)?
        let window = meetBy ?? FixTime(nanosecondsSince1970: .max)
        if let latest = due.latest { meeting = atOnce ? { _ in false } : { $0.time >= latest && $0.time <= window } }
        // Under a distance rule a choice keeps at most one point more than the wishes it meets:
        // one may be needed to go round wishes the rule forbids together, and more bought only
        // a smaller excess over the tolerance (`SpacedPath.choice(_:mostPoints:tolerance:excessAlike:)`,
        // which keeps that one only for a real saving); none more for a heartbeat and a corner
        // the rule would store together (`mayMeet`). Under TimeBased the rule keeps the count
        // down itself.
        let path = SpacedPath(origin: origin, fixes: since, filtering: filtering, tolerance: tolerance, stoppedSpeed: stoppedSpeed,
                              corners: Set(owed.filter { $0.trigger.isCorner }.map(\.location.time)),
                              mostPoints: filtering == .timeBased ? nil : owed.count + (heartbeatWeighed ? 0 : 1), offsets: offsets)
        let placed = path.points(meeting: meeting, endMeets: atOnce || (since.last.map { $0.time <= window } ?? true))
        let corners = atOnce && !now ? cornersBeforeAStop(path, instead: placed, at: fix, due: due) : []
        return Choice(points: corners.isEmpty ? placed : corners, mustReachEnd: meeting != nil, cornersAlone: !corners.isEmpty)
    }

    /// Keeps `kept`, each point with the trigger owed at its time, and clears what they met.
    private mutating func commit(_ kept: [Location], mustReachEnd: Bool, nextAttempt again: FixTime?) -> [KeptLocation] {
        var out: [KeptLocation] = []
        for point in kept {
            let trigger = owed.last { $0.location.time <= point.time }?.trigger ?? owed.first?.trigger ?? .deviation
            out.append(KeptLocation(location: point, trigger: trigger))
        }
        let reachesEnd = mustReachEnd && kept[kept.count - 1].time == since.last?.time
        if reachesEnd, let origin = lastKept, let end = since.last,
           let place = placeStood(at: end, after: kept.count > 1 ? kept[kept.count - 2] : origin) {
            out[out.count - 1].location = place
        }
        let newest = out[out.count - 1].location
        owed.removeAll { $0.location.time <= newest.time }
        if reachesEnd { owed.removeAll() }
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
        /// The last point, chosen again once a fix comes that the tracker would store after it
        /// (`awaitingRoadAfter`); the points before it are kept now.
        case untilStorable(Location)
    }

    /// What of a choice waits for more road, under the rule in force.
    private func deferral(of chosen: [Location], at fix: Location, atOnce: Bool, owing: PlacesOwed, placesUntil latest: FixTime?,
                          firstAllowed: Location) -> Deferral {
        filtering == .timeBased
            ? timeBasedDeferral(of: chosen, at: fix, atOnce: atOnce, owing: owing, firstAllowed: firstAllowed)
            : distanceDeferral(of: chosen, at: fix, atOnce: atOnce, owing: owing, placesUntil: latest)
    }

    /// Under TimeBased the last point chosen forbids any other for 30 s: while it is younger than
    /// that, the road it forbids is not all seen, and it is chosen again once it is (`maxDefer`),
    /// or, of several chosen together, once its 30 s have come: the points before it stand. A
    /// heartbeat chosen alone is chosen again once, among fixes no later than the first choice
    /// (`meetBy`), so one due every few seconds is not put off again and again; any other place
    /// owed is kept once chosen, and one owed at once (a stop where the vehicle stands, the end)
    /// is never put off.
    private func timeBasedDeferral(of chosen: [Location], at fix: Location, atOnce: Bool, owing: PlacesOwed,
                                   firstAllowed: Location) -> Deferral {
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

    /// Under a distance rule, corners alone chosen while more are still coming (`overdue`): the
    /// points whose road after them is not yet seen. And where the points before the last meet
    /// every place owed (up to `latest`) and the stretch after the last stays open, the last
    /// when less than the wait of road is seen after it: nothing owed needs it, and the rule
    /// ties the next point to it. Kept at once, a point 1.8 s before the newest fix, chosen
    /// with a stop the vehicle had left, stood in a roundabout 20 m in radius where the
    /// receiver reported 13-21 m, and the track to the next point the rule allowed passed 15.5 m
    /// from the true path (a random road of our own at 5 Hz under AccuracyBased; 12.0 m now).
    ///
    /// And, with no stop, departure or end owed, the last point whose open stretch ends at a fix
    /// the tracker would not store after it (the vehicle still within the rule's reach, in a
    /// U-turn or a roundabout), until one comes that it would (`awaitingRoadAfter`), or the
    /// corners owed are `overdue`: the stretch was measured to a fix no point can follow it at,
    /// and the rule then put the next point across the turn. A heartbeat owed 10 s before a
    /// U-turn 18 m across chose its point at the turn's entry; the next the rule allowed was past
    /// the turn, 15.5 m from the true path (an unseen random road at 1 Hz under AccuracyBased;
    /// 11.2 m now, chosen a second later once the fix after the turn had come).
    private func distanceDeferral(of chosen: [Location], at fix: Location, atOnce: Bool, owing: PlacesOwed,
                                  placesUntil latest: FixTime?) -> Deferral {
        if !atOnce, chosen.count > 1, let latest, chosen[chosen.count - 2].time >= latest, let last = chosen.last,
           last.time < fix.time, last.time.seconds(to: fix.time) < wait {
            return .last(until: fix.time)
        }
        if !atOnce, owing != .others, let last = chosen.last, last.time < fix.time, !filtering.stores(fix, after: last), !overdue(at: fix) {
            return .untilStorable(last)
        }
        return !atOnce && owing == .nothing && !settled(at: fix) ? .after(fix.time.adding(seconds: -wait)) : .none
    }

    /// The places owed (not corners), as `deferral` weighs them.
    private enum PlacesOwed {
        case nothing, heartbeats, others

        init(_ due: PlacesDue) {
            self = due.earliest == nil ? .nothing : due.stop == nil && !due.other ? .heartbeats : .others
        }
    }
}
