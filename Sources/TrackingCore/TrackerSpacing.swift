/// The tracker's `PositionFiltering` as a constraint on what the filter keeps: nothing is kept
/// that the tracker would not store, and within the constraint the kept point is chosen so that
/// the stored track stays close to the path.
///
/// The motion triggers decide where the track needs a point (a corner, a stop, a heartbeat). When
/// the tracker would store that point after the last one kept, it is kept as it is. When it would
/// not (TimeBased: less than 30 s after the last; DistanceBased: less than 30 m from it), the wish
/// is held back — counted in `withheld` — and owed: once fixes the tracker would store have come for
/// `lookahead` seconds (or at a stop, or at the end of the stream), the one among them that leaves
/// the fixes since the last kept point closest to the two segments through it is kept instead,
/// with the first owed wish's trigger. Choosing among the allowed fixes, not merely taking the
/// first one allowed, is what keeps a TimeBased track near the road.
///
/// Memory is bounded: at most `maxHeld` fixes since the last kept point (the oldest are thinned).
public struct TrackerSpacing: Sendable {
    public var filtering: TrackerFiltering
    /// Seconds of fix time to wait among allowed fixes for a better one before keeping one.
    public var lookahead: Double
    /// The last point kept (and so sent): the tracker's last stored position, as far as it is known.
    public private(set) var lastKept: Location?
    /// Wishes of the triggers the constraint held back.
    public private(set) var withheld = 0

    /// The triggers' wishes not yet met, oldest first.
    private var owed: [KeptLocation] = []
    /// Fixes since `lastKept`, oldest first.
    private var since: [Location] = []
    private let maxHeld = 2000

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
        }
        var out: [KeptLocation] = []
        for wish in kept { out += consider(wish) }
        if !owed.isEmpty, let choice = substitute(upTo: fix, now: false) { out += choice }
        return out
    }

    /// At the end of the stream: the triggers' final point, or the best allowed point owed.
    public mutating func finish(_ final: KeptLocation?) -> [KeptLocation] {
        var out: [KeptLocation] = []
        if let final { out += consider(final) }
        if filtering != .none, !owed.isEmpty, let last = since.last, let choice = substitute(upTo: last, now: true) { out += choice }
        return out
    }

    /// A wish of the triggers: kept when the tracker would store it and nothing is owed before it.
    private mutating func consider(_ wish: KeptLocation) -> [KeptLocation] {
        // A wish from before the last point kept (the triggers' own corner search reaches back
        // further than the spacing's choice) cannot be added without reordering the track.
        if let last = lastKept, wish.location.time <= last.time {
            withheld += 1
            return []
        }
        if owed.isEmpty, filtering.stores(wish.location, after: lastKept) {
            keep(wish.location)
            return [wish]
        }
        owed.append(wish)
        withheld += 1
        return []
    }

    /// Keeps the best allowed fix for what is owed, when its time has come; then what is still owed
    /// and now allowed.
    private mutating func substitute(upTo fix: Location, now: Bool) -> [KeptLocation]? {
        guard let origin = lastKept, let firstAllowed = since.firstIndex(where: { filtering.stores($0, after: origin) }) else { return nil }
        let stopping = owed.contains { $0.trigger == .stop || $0.trigger == .final }
        guard now || stopping || since[firstAllowed].time.seconds(to: fix.time) >= lookahead else { return nil }
        let plane = LocalPlane(latitude: origin.latitude, longitude: origin.longitude)
        let points = since.map { plane.project($0) }
        let start = (x: 0.0, y: 0.0)
        let end = points[points.count - 1]
        var best = firstAllowed
        var bestError = Double.infinity
        for candidate in firstAllowed..<since.count where filtering.stores(since[candidate], after: origin) {
            let c = points[candidate]
            var error = 0.0
            for (index, p) in points.enumerated() where index != candidate {
                error = max(error, index < candidate
                    ? LocalPlane.distance(from: p, toSegment: start, c)
                    : LocalPlane.distance(from: p, toSegment: c, end))
                if error >= bestError { break }
            }
            if error < bestError {
                bestError = error
                best = candidate
            }
        }
        let chosen = since[best]
        let trigger = owed[0].trigger
        owed.removeAll { $0.location.time <= chosen.time }
        keep(chosen)
        var out = [KeptLocation(location: chosen, trigger: trigger)]
        while let next = owed.first, filtering.stores(next.location, after: lastKept) {
            owed.removeFirst()
            keep(next.location)
            out.append(next)
        }
        return out
    }

    private mutating func keep(_ location: Location) {
        lastKept = location
        since.removeAll { $0.time <= location.time }
    }
}

