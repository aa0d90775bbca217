/// The best points among the fixes since the last kept one, when every kept point must be one the
/// tracker stores after the one before it (its `PositionFiltering`).
///
/// A small dynamic program over the fixes in hand (about `maxNodes` candidates, the fixes
/// between them all counted): first the smallest largest distance from any fix to the polyline
/// that the rule allows (a bottleneck path), then, within `max(tolerance, that distance)`, the
/// least excess over the tolerance summed over the segments (under TimeBased, sums within half a
/// metre weigh the same: `timeBasedExcessAlike`), then the fewest points, then the nearest to
/// the fixes (the largest distance, then each segment's own summed); under a distance rule at
/// most `mostPoints`, the last of them only for more than `Choice.pointWorth` of excess. This is
/// what a greedy choice cannot do at a tight corner or a U-turn, where the point before the turn
/// must be chosen together with the apex; and the summed excess keeps one stretch the rule
/// forces far off the fixes from licensing every other segment in the window to go as far.
///
/// The excess is counted as the deviation trigger counts its room: on a bend's inside of a fix
/// (`TurnWatch`) a segment has `turnShare` of the tolerance, for the receiver's fixes already cut
/// the bend, and on both sides of the first fix after a gap `gapShare` (see `gaps`). With the
/// whole tolerance on a bend's inside, a chord across a ramp passed 10 m inside fixes that were
/// 4 m inside the road (an unseen make_drive seed under DistanceBased, 14.6 m from the true path;
/// 11.1 m with the share, one point more).
///
/// Where the vehicle stood (a red light, a stop), its fixes count as the place they drift about,
/// their mean: a fix drifted 13 m behind the stop set the largest distance, and the bend after
/// the light was then cut as far at no cost (a random road of our own under DistanceBased, 13.3 m
/// from the true path; 10.5 m with the mean). A segment from such a fix is measured from the
/// place too: measured from the drifted fix itself, the choice kept up to two points more on
/// eleven roads it had not seen, and no track came nearer the true path.
struct SpacedPath {
    let origin: Location
    let fixes: [Location]
    let filtering: TrackerFiltering
    let tolerance: Double
    /// A fix no faster than this is drift about where the vehicle stands (`stopped-speed`).
    var stoppedSpeed = 1.0
    /// Fixes that stay candidates however many are thinned: the triggers' own corners, owed.
    /// Thinned evenly alone, a window of a twisty minute at 5 Hz weighed a fix every 1.8 s, and
    /// none near a loop's turns (a random road of our own under DistanceBased: 15.2 m from the
    /// true path; 14.5 m with its corners).
    var corners: Set<FixTime> = []
    /// The most points a choice may keep, when the triggers' wishes it meets set one.
    var mostPoints: Int?
    /// Where fixes stand off the road, by fix time, where the triggers read it
    /// (`ReceiverOffset`): on a moving fix's far side from the road a segment gets the room the
    /// deviation trigger gives it there. Not under TimeBased, where points 30 s apart stand tens
    /// of metres off the road whatever the fixes do, and the measuring cost 10-20 % more CPU.
    var offsets: [FixTime: (x: Double, y: Double)] = [:]
    /// Candidates considered; more fixes are thinned evenly (the last and `corners` always stay).
    static let maxNodes = 60
    /// Fixes either side of a corner owed that stay candidates with it. The triggers' corner is
    /// where the road turned, not always the point the rule lets the track keep there: a stop
    /// held a minute in stop-and-go after a roundabout 25 m across put 130 fixes in one choice,
    /// thinned to every third, and the fixes 30 m apart round the roundabout that pass nearest
    /// it were not among them (a random road of our own at 1 Hz under DistanceBased: 20.2 m from
    /// the true path; 12.9 m, the best any stored track can do). On 55 drives 9 points fewer
    /// under the two distance rules together, and 31 tracks beyond the bound where 34 were. Not
    /// under TimeBased: on the same drives 13 tracks came nearer the true path by more than a
    /// metre (a random road 87.7 -> 55.2 m) and 15 went farther (the suburb at 5 Hz 102.2 ->
    /// 117.5 m, a random road at 10 Hz 137.4 -> 155.6 m), with two points more on seed 11.
    static let cornerReach = 2
    /// Under TimeBased, summed excesses this near weigh the same, and the count decides: points
    /// 30 s apart leave most segments beyond the tolerance, and a point that took a few tenths
    /// of a metre off their sum was kept for it (make_drive seed 23: one 1.5 m from the line
    /// between its neighbours). On 71 drives 14 points fewer, on 13 of them, each track as far
    /// from the true path as before. Not under a distance rule, where the excess is what keeps
    /// a bend's inside: with the same half metre, make_drive seeds 11 and 844 under
    /// DistanceBased went 11.0 -> 12.4 m and 11.2 -> 12.5 m from the true path.
    static let timeBasedExcessAlike = 0.5
    /// How near two summed excesses weigh the same under the rule in force.
    var excessAlike: Double { filtering == .timeBased ? Self.timeBasedExcessAlike : Choice.sameExcess }

    /// The points to keep, in time order. With `meeting` (a stop, a heartbeat: the vehicle's
    /// place must be kept), one of them is the newest fix or an earlier one `meeting` accepts (a
    /// heartbeat due where a corner is, and the two too close for the rule to store both); after
    /// an earlier one the track goes on through the fixes since, its last stretch open, as a
    /// choice for corners alone does. Ending at the place, with the stretch after it weighed as
    /// the chord to the newest fix, the choice took the place nearest that chord: a heartbeat put
    /// off (`meetBy`) while corners came for two minutes was met at its window's end, and the
    /// first corner was cut (the suburb of our own at 5 Hz under TimeBased: 102.2 m from the
    /// true path; 56.7 m now, 60.5 m segment by segment against the best 57.1 m). Empty when
    /// the straight line from `origin` still represents the fixes (or the rule allows no such
    /// track yet). Without `endMeets` the newest fix is no place: `meeting` alone says which
    /// fixes are (a heartbeat chosen again must not come later than it was first chosen).
    func points(meeting: ((Location) -> Bool)? = nil, endMeets: Bool = true) -> [Location] {
        guard !fixes.isEmpty else { return [] }
        let (_, standing, places) = steadiedFixes()
        let projected = [(x: 0.0, y: 0.0)] + places
        let turns = [TurnWatch.Turn.straight] + Self.turns(fixes, standing: standing)
        let nodes = candidates()
        let end = nodes.count - 1
        func location(_ node: Int) -> Location { nodes[node] == 0 ? origin : fixes[nodes[node] - 1] }
        let marks = nodes.indices.map { TrackerFiltering.Mark(location($0)) }
        let blocks = FixBlocks(points: projected, turns: turns, afterGap: [false] + gaps(standing: standing), tolerance: tolerance,
                               farSides: filtering == .timeBased || offsets.isEmpty ? [] : [nil] + farSides(standing: standing))
        // Edges: the rule between kept points. Into the end, either the end is kept (the rule
        // applies; with a place owed, only where the end is one) or the stretch after `a` stays
        // open (no rule): with a place owed, where `a` is one `meeting` takes or cannot keep the
        // end, and only on a track that has met the place (`meets`, weighed in `choice`).
        func keepsEnd(_ a: Int) -> Bool { meeting != nil && endMeets && filtering.stores(marks[end], after: marks[a]) }
        let meets = meeting.map { meeting in nodes.indices.map { $0 == end ? endMeets : $0 > 0 && meeting(location($0)) } } ?? []
        func leavesOpen(_ a: Int) -> Bool { meets.isEmpty || a > 0 && (meets[a] || !keepsEnd(a)) }
        func allowed(_ a: Int, _ b: Int) -> Bool {
            b == end ? keepsEnd(a) || leavesOpen(a) : filtering.stores(marks[b], after: marks[a])
        }
        // 1. The pairs the rule allows, each measured only from a candidate the path can reach
        //    (under TimeBased none in the 30 s after `origin`), and only as far as it could be
        //    weighed (`Pairs.init(count:asked:allowed:tolerance:mostPoints:measuring:)`): the
        //    largest distance from a fix between the two to their segment, and the most any is
        //    beyond its room (less on a bend's inside and after a gap).
        // An open stretch counts a point as the kept end does: it will need one (where the road
        // goes next), so the two are weighed by how near they keep the fixes. Its segment is not
        // the one that will be stored (the next point is not known yet), so it gets the room a
        // bend's inside gets: a corner left 9 m inside its fixes was 15 m inside the road
        // (make_drive seed 43 under AccuracyBased).
        let pairs = Pairs(count: nodes.count, asked: Self.askable(marks, filtering), allowed: allowed,
                          tolerance: tolerance, mostPoints: mostPoints, meets: meets) { a, b, within in
            guard let (worst, over) = blocks.reach((nodes[a] + 1)..<nodes[b], from: projected[nodes[a]], to: projected[nodes[b]], within: within) else { return nil }
            let open = b == end && leavesOpen(a)
            return (worst, open && meeting != nil ? worst - tolerance * MotionTriggers.turnShare : over, !open)
        }
        // 2. The smallest largest distance the rule allows; within it, the least excess over the
        //    tolerance summed over the segments, then the fewest points, then the smaller largest
        //    distance, then the smaller sum of each segment's largest distance squared: a stretch
        //    the rule forces off the fixes must not license every other segment in the window to
        //    go as far, nor, where it sets the largest distance, leave the choice of the others to
        //    chance. Where that keeps more than `mostPoints`, the same among tracks of at most so
        //    many points (`choice(_:mostPoints:tolerance:excessAlike:)`).
        guard let choice = Self.choice(pairs, mostPoints: mostPoints, tolerance: tolerance, excessAlike: excessAlike) else { return [] }
        return choice.nodes.map(location) + (choice.endKept ? [location(end)] : [])
    }

    /// For each candidate, how many of those before it the rule may allow as the point before it:
    /// under TimeBased those 30 s or more before it, the first ones in time order (the rule was
    /// asked about every pair, and said no to those within 30 s: 5 % of the filter's
    /// instructions under TimeBased at 1 Hz); under a distance rule any of them. Into the newest
    /// fix every one is asked: a stretch left open there asks no rule.
    static func askable(_ marks: [TrackerFiltering.Mark], _ filtering: TrackerFiltering) -> [Int] {
        guard filtering == .timeBased else { return Array(marks.indices) }
        var tooClose = 0
        return marks.indices.map { b in
            while tooClose < b, filtering.stores(marks[b], after: marks[tooClose]) { tooClose += 1 }
            return tooClose
        }
    }

    /// The candidates, as indices into the projected points (0 is the origin, the last is the
    /// newest fix), in time order: every fix, or with more than `maxNodes` fixes an even
    /// thinning of them with `corners` kept, and the fixes within `cornerReach` of each.
    private func candidates() -> [Int] {
        guard fixes.count > Self.maxNodes else { return Array(0...fixes.count) }
        // The thinning's and the corners', each in order, merged, each once (through a Set they
        // were hashed, 3 % of the spacing's instructions; sorted together each choice, 1 %).
        let reach = filtering == .timeBased ? 0 : Self.cornerReach
        let found = corners.compactMap(index(of:))
        let owed = found.flatMap { corner in (corner + 1 - reach)...(corner + 1 + reach) }.filter { (1...fixes.count).contains($0) }.sorted()
        // The corners' neighbours come out of the even thinning's share: a choice weighs no
        // more pairs than it did (their cost grows with the square of the candidates).
        let share = max(Self.maxNodes / 2, Self.maxNodes - (owed.count - found.count))
        let step = max(2, (fixes.count + share - 1) / share)
        let even = Array(stride(from: 0, to: fixes.count, by: step)) + [fixes.count]
        var nodes: [Int] = []
        nodes.reserveCapacity(even.count + owed.count)
        var (i, j) = (0, 0)
        while i < even.count || j < owed.count {
            let node: Int
            if j == owed.count || i < even.count && even[i] <= owed[j] {
                (node, i) = (even[i], i + 1)
            } else {
                (node, j) = (owed[j], j + 1)
            }
            if nodes.last != node { nodes.append(node) }
        }
        return nodes
    }

    /// The index of the fix of `time`, found by halving (the fixes are in time order; each fix
    /// looked up in `corners` instead cost a hash, 1 % of the spacing's instructions at 1 Hz).
    private func index(of time: FixTime) -> Int? {
        var (low, high) = (0, fixes.count)
        while low < high {
            let middle = (low + high) / 2
            if fixes[middle].time < time { low = middle + 1 } else { high = middle }
        }
        return low < fixes.count && fixes[low].time == time ? low : nil
    }

    /// The largest distance from a fix held to the polyline from `origin` through `track`, each
    /// fix against the segment of its time (fixes where the vehicle stood count as their mean);
    /// fixes after the last point are not counted.
    func largestDistance(through track: [Location]) -> Double {
        let (plane, _, projected) = steadiedFixes()
        let vertices = [origin] + track
        var worst = 0.0, segment = 0
        for (fix, point) in zip(fixes, projected) {
            while segment + 1 < vertices.count, vertices[segment + 1].time < fix.time { segment += 1 }
            guard segment + 1 < vertices.count else { break }
            let a = plane.project(vertices[segment]), b = plane.project(vertices[segment + 1])
            worst = max(worst, LocalPlane.distance(from: point, toSegment: a, b))
        }
        return worst
    }

    /// The plane about `origin`, which fixes are where the vehicle stood, and each fix on the
    /// plane with the standing ones at their run's mean (`steadied`).
    private func steadiedFixes() -> (plane: LocalPlane, standing: [Bool], places: [(x: Double, y: Double)]) {
        let plane = LocalPlane(latitude: origin.latitude, longitude: origin.longitude)
        let standing = fixes.map { $0.stands(atMost: stoppedSpeed) }
        return (plane, standing, Self.steadied(fixes.map { plane.project($0) }, standing: standing))
    }

    /// `points` with each run of standing fixes replaced by the run's mean: the place where the
    /// vehicle stood, which the track should pass, without the drift about it.
    static func steadied(_ points: [(x: Double, y: Double)], standing: [Bool]) -> [(x: Double, y: Double)] {
        var out = points
        var start = 0
        while start < points.count {
            guard standing[start] else {
                start += 1
                continue
            }
            var end = start
            while end + 1 < points.count, standing[end + 1] { end += 1 }
            let run = points[start...end]
            let mean = (x: run.map(\.x).reduce(0, +) / Double(run.count), y: run.map(\.y).reduce(0, +) / Double(run.count))
            for index in start...end { out[index] = mean }
            start = end + 1
        }
        return out
    }

    /// The turn at each fix (`TurnWatch`), none where the vehicle stands. By index, and each
    /// fix's course and time read where they lie: zipped with `standing`, or handed to the watch
    /// whole, each fix was copied (3 % of the spacing's instructions at 1 Hz, then 1 %).
    ///
    /// Over five seconds only, without the triggers' sharp two-second reading: where the rule
    /// forces a segment off the fixes (a U-turn 30 m across under DistanceBased), the choice
    /// weighs each option's excess on the bends' insides, and the U-turn's entry read as a bend
    /// moved it to a chord 14.7 m from the true path (make_drive seed 11; 11.0 m without; with
    /// it, seed 510 under DistanceBased 12.0 -> 12.2 m as well, and nothing came nearer).
    static func turns(_ fixes: [Location], standing: [Bool]) -> [TurnWatch.Turn] {
        var watch = TurnWatch(readsSharpBends: false)
        return fixes.indices.map { index in
            guard !standing[index] else {
                watch.reset()
                return .straight
            }
            return watch.turn(course: fixes[index].course, at: fixes[index].time)
        }
    }

    /// For each fix, where it stands off the road and the room a segment has on its far side
    /// from it (`ReceiverOffset.farRoom`), where the triggers read it and the fix moves.
    func farSides(standing: [Bool]) -> [FarSide?] {
        fixes.indices.map { index in
            let fix = fixes[index]
            guard !standing[index], let offset = offsets[fix.time], let course = fix.course else { return nil }
            return FarSide(offset: offset, room: ReceiverOffset.farRoom(offset: offset, course: course, limit: tolerance * MotionTriggers.roadShare,
                                                                         least: tolerance * MotionTriggers.leastShare))
        }
    }

    /// Where a fix stands off the road, and the room a segment has passing it on the far side.
    struct FarSide {
        var offset: (x: Double, y: Double)
        var room: Double
    }

    /// Whether each fix is the first after a gap, moving (`MotionTriggers.gapSeconds`): the
    /// segment spanning the gap stands in for the road in it, and the trigger gives such a fix
    /// `gapShare` of the room on both sides. With the whole room here, random road 303 under
    /// DistanceBased left a red light for a roundabout, its first 6 s of fixes rejected, on a
    /// segment 7.3 m from the first fix after them and 16.0 m from the true path (12.4 m with
    /// the gap's room, one point fewer).
    func gaps(standing: [Bool]) -> [Bool] {
        fixes.indices.map { index in
            let before = index == 0 ? origin : fixes[index - 1]
            return !standing[index] && MotionTriggers.isGap(from: before, to: fixes[index])
        }
    }

    /// Whether the segment from `a` to `b` passes on the bend's inside of `p` (the fix on the
    /// segment's left in a right turn): there a fix is measured against `turnShare` of the room,
    /// as the deviation trigger measures it, for the receiver's fixes already cut the bend.
    static func insideOfABend(_ p: (x: Double, y: Double), _ turn: TurnWatch.Turn, _ a: (x: Double, y: Double), _ b: (x: Double, y: Double)) -> Bool {
        let side = side(of: p, from: a, to: b)
        switch turn {
        case .right: return side > 0
        case .left: return side < 0
        case .straight: return false
        }
    }

    /// Which side of the line from `a` to `b` `p` lies on: positive on its left, negative on its
    /// right, 0 on it (east and north make a right-handed plane).
    static func side(of p: (x: Double, y: Double), from a: (x: Double, y: Double), to b: (x: Double, y: Double)) -> Double {
        (b.x - a.x) * (p.y - a.y) - (b.y - a.y) * (p.x - a.x)
    }
}
