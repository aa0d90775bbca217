import Testing
@testable import TrackingCore

/// The spacing's choice among the fixes since the last kept point, under a rule that forces one
/// stretch off the fixes.
@Suite struct SpacedPathTests {
    /// East at 5 m a second from the last kept point to a corner at 100 m, then north to 100 m;
    /// one fix 20 m off the road 10 m out, within DistanceBased's 30 m of the origin: no track can
    /// pass nearer it than 20 m.
    static func fixes() -> [Location] {
        (1...40).map { step in
            let (east, north) = step <= 20 ? (Double(step) * 5, step == 2 ? -20.0 : 0) : (100, Double(step - 20) * 5)
            return Track.fix(Double(step), east: east, north: north)
        }
    }

    @Test func aStretchTheRuleForcesOffTheFixesDoesNotLetTheRestGoAsFar() throws {
        let fixes = Self.fixes()
        let origin = Track.fix(0)
        let chosen = SpacedPath(origin: origin, fixes: fixes, filtering: .distanceBased, tolerance: 10).points()
        // The first segment must pass 20 m from the fix at 10 m; that must not let the corner be
        // cut by as much (a point 20 m before it would do for the fewest points within 20 m).
        let track = [origin] + chosen + [fixes[fixes.count - 1]]
        for (a, b) in zip(track, track.dropFirst()) { #expect(TrackerFiltering.distanceBased.stores(b, after: a)) }
        let plane = LocalPlane(latitude: origin.latitude, longitude: origin.longitude)
        let beyondTheForcedStretch = fixes.filter { plane.project($0).x >= 40 }
        let (_, farthest) = SimplificationFidelityTests.compliance(beyondTheForcedStretch, track: track, tolerance: 10)
        #expect(farthest <= 10, "the corner within the tolerance: \(farthest) m with \(chosen.count) points")
        #expect(chosen.count == 1, "one point at the corner is enough")
        let corner = try #require(chosen.first)
        #expect(plane.project(corner).x >= 90)
    }

    /// Where the stretch the rule forces off the fixes sets the largest distance, every corner
    /// point within the tolerance ties on it; the one that keeps the other segments nearest their
    /// fixes is the corner itself, not a fix 5 m before or after it.
    @Test func amongPointsThatTieOnTheForcedStretchTheNearestToTheFixesIsKept() throws {
        let fixes = Self.fixes()
        let origin = Track.fix(0)
        let chosen = SpacedPath(origin: origin, fixes: fixes, filtering: .distanceBased, tolerance: 10).points()
        #expect(chosen.map(\.time) == [fixes[19].time], "the corner, at 100 m east")
    }

    /// Stopped at a red light (the stop point kept), the receiver drifting about it, one fix 14 m
    /// behind; then south through a bend 14 m on and west-south-west. Under DistanceBased no point
    /// may stand within 30 m of the stop. The drift must not make the bend free to cut: a segment
    /// straight from the stop is as far from the drifted fix as any, but the bend needs a point.
    @Test func theDriftAboutAStopDoesNotLicenseCuttingTheBendAfterIt() throws {
        let origin = Track.fix(0, speed: 0)
        let drift: [(Double, Double)] = [(3, 2), (-2, 3), (-3, -2), (2, -3), (0, 14), (1, 1), (-1, -2), (2, 2), (-2, -1), (1, -1)]
        var fixes = drift.enumerated().map { Track.fix(Double($0.offset + 1), east: $0.element.0, north: $0.element.1, speed: 0) }
        fixes += [Track.fix(11, north: -7, speed: 7, course: 180), Track.fix(12, north: -14, speed: 7, course: 180)]
        fixes += (1...15).map { step in
            Track.fix(Double(12 + step), east: -7 * Double(step), north: -14 - 1.4 * Double(step), speed: 7, course: 259)
        }
        let chosen = SpacedPath(origin: origin, fixes: fixes, filtering: .distanceBased, tolerance: 10).points()
        let track = [origin] + chosen + [fixes[fixes.count - 1]]
        for (a, b) in zip(track, track.dropFirst()) { #expect(TrackerFiltering.distanceBased.stores(b, after: a)) }
        let moving = fixes.filter { ($0.speed ?? 0) > 1 }
        let (_, farthest) = SimplificationFidelityTests.compliance(moving, track: track, tolerance: 10)
        #expect(farthest < 12, "the bend within 12 m of the track: \(farthest) m with \(chosen.count) points")
    }

    /// East at 10 m a second, then a long bend to the right (4° a second for 20 s), then straight
    /// on: a ramp. The fixes lie on the road, and a chord across the bend passes on its
    /// inside, where a receiver's fixes already are (they cut a bend): there the choice gives a
    /// segment `turnShare` of the tolerance, as the deviation trigger does, not all of it (an
    /// unseen make_drive seed under DistanceBased: 14.6 m from the true path with the fixes 4 m
    /// inside the ramp and the chord 10 m inside them; 11.1 m now).
    static func ramp() -> [Location] {
        Array(Track.driven(through: 50, speed: 10) { 90 + 4 * Double(min(max($0 - 9, 0), 20)) }.dropFirst())
    }

    @Test func aChordAcrossABendKeepsTheInsideRoomTheDeviationTriggerKeeps() throws {
        let fixes = Self.ramp()
        let origin = Track.fix(0, speed: 10, course: 90)
        let chosen = SpacedPath(origin: origin, fixes: fixes, filtering: .distanceBased, tolerance: 10).points()
        let track = [origin] + chosen + [fixes[fixes.count - 1]]
        for (a, b) in zip(track, track.dropFirst()) { #expect(TrackerFiltering.distanceBased.stores(b, after: a)) }
        let (_, farthest) = SimplificationFidelityTests.compliance(fixes, track: track, tolerance: 10)
        #expect(farthest <= 10 * MotionTriggers.turnShare + 1e-6, "the bend's fixes within 7 m of the chord: \(farthest) m with \(chosen.count) points")
    }

    /// East at 10 m a second; no fix for 7 s (a tunnel, or fixes the gate rejected), and the
    /// first after it 8 m north of the line the others keep. The segment across the gap stands in
    /// for the road in it: as the deviation trigger does, the choice gives that fix `gapShare` of
    /// the room on both sides, not all of it.
    @Test func theFirstFixAfterAGapHasTheRoomTheDeviationTriggerGivesIt() throws {
        let before: [Location] = (1...10).map { Track.fix(Double($0), east: Double($0) * 10) }
        let after: [Location] = (18...30).map { Track.fix(Double($0), east: Double($0) * 10) }
        let fixes = before + [Track.fix(17, east: 170, north: 8)] + after
        let origin = Track.fix(0)
        let chosen = SpacedPath(origin: origin, fixes: fixes, filtering: .distanceBased, tolerance: 10).points()
        let track = [origin] + chosen + [fixes[fixes.count - 1]]
        for (a, b) in zip(track, track.dropFirst()) { #expect(TrackerFiltering.distanceBased.stores(b, after: a)) }
        let (_, farthest) = SimplificationFidelityTests.compliance([fixes[10]], track: track, tolerance: 10)
        #expect(farthest <= 10 * MotionTriggers.gapShare + 1e-6, "the fix after the gap within 5 m: \(farthest) m with \(chosen.count) points")
        let (_, others) = SimplificationFidelityTests.compliance(fixes, track: track, tolerance: 10)
        #expect(others <= 10)
    }

    /// East at 5 m a second to a corner at 100 m (second 20), then north to 20 m; accuracies of
    /// 15 m, so under AccuracyBased kept points stand at least 30 m apart: the corner and the
    /// newest fix, 20 m north of it, cannot both be kept.
    static func corner(through seconds: Int = 24) -> [Location] {
        (1...seconds).map { step in
            let (east, north) = step <= 20 ? (Double(step) * 5, 0.0) : (100, Double(step - 20) * 5)
            return Track.fix(Double(step), east: east, north: north, course: step <= 20 ? 90 : 0, accuracy: 15)
        }
    }

    @Test func aHeartbeatDueBeforeACornerIsMetByTheCornerWithTheRoadAfterItLeftOpen() throws {
        let fixes = Self.corner()
        let origin = Track.fix(0, accuracy: 15)
        let path = SpacedPath(origin: origin, fixes: fixes, filtering: .accuracyBased, tolerance: 10)
        // Due at second 17: any fix since shows the vehicle's place. Keeping the newest (20 m
        // past the corner) would force the point before it 30 m back, cutting the corner by 12 m.
        let chosen = path.points { $0.time >= fixes[16].time }
        #expect(chosen.map(\.time) == [fixes[19].time], "the corner itself, the stretch after it open")
    }

    @Test func aStopIsMetByTheNewestFixWhenItIsDueThere() throws {
        let fixes = Self.corner(through: 28)
        let origin = Track.fix(0, accuracy: 15)
        // As `TrackerSpacing` asks for a stop: no fix but the newest meets it.
        let chosen = SpacedPath(origin: origin, fixes: fixes, filtering: .accuracyBased, tolerance: 10).points { _ in false }
        let last = try #require(chosen.last)
        #expect(last.time == fixes[27].time, "the place the vehicle stopped is kept")
        let track = [origin] + chosen
        for (a, b) in zip(track, track.dropFirst()) { #expect(TrackerFiltering.accuracyBased.stores(b, after: a)) }
        let (_, farthest) = SimplificationFidelityTests.compliance(fixes, track: track, tolerance: 10)
        #expect(farthest <= 10, "the corner within the tolerance: \(farthest) m")
    }

    /// At 10 Hz and 30 m/s, 600 fixes since the last kept point: a right-angle corner 915 m east
    /// at fix 305, then north. The choice weighs every tenth fix (30 m apart), which straddle the
    /// corner 15 m either side; the triggers' own corner, owed, is weighed as well, and it alone
    /// keeps every fix on the track.
    @Test func theTriggersCornerOwedIsWeighedHoweverManyFixesAreThinned() throws {
        let fixes = (1...600).map { k in
            Track.fix(Double(k) / 10, east: 3 * Double(min(k, 305)), north: 3 * Double(max(k - 305, 0)), speed: 30)
        }
        let origin = Track.fix(0, speed: 30)
        let corner = fixes[304]
        let chosen = SpacedPath(origin: origin, fixes: fixes, filtering: .distanceBased, tolerance: 10, corners: [corner.time]).points()
        #expect(chosen.map(\.time) == [corner.time])
        let (_, farthest) = SimplificationFidelityTests.compliance(fixes, track: [origin] + chosen + [fixes[599]], tolerance: 10)
        #expect(farthest < 1, "every fix on the track: \(farthest) m")
    }

    /// Candidates 0 (the origin) to 3 (the newest fix): through 1 alone the track leaves half a
    /// metre of excess over the tolerance; through 1 and 2 none. A pair not set is one the rule
    /// forbids.
    static func pairs(keepingTheEndFrom2 keeps: Bool) -> SpacedPath.Pairs {
        var pairs = SpacedPath.Pairs(count: 4)
        for (a, b, cost, over) in [(0, 1, 5.0, -2.0), (1, 3, 9.0, 0.5), (1, 2, 3.0, -5.0), (2, 3, 3.0, -5.0), (0, 3, 20.0, 10.0)] {
            pairs.measure(a, b, cost: cost, over: over)
        }
        pairs.keepsEnd = [true, true, keeps, false]
        return pairs
    }

    /// The rule is asked only about pairs it may allow: under TimeBased the candidates 30 s or
    /// more before each, and the choice must still be offered every one of those.
    @Test(arguments: [TrackerFiltering.timeBased, .distanceBased, .accuracyBased])
    func everyPairTheRuleAllowsIsAsked(filtering: TrackerFiltering) {
        let seconds = [0.0, 10, 29.9, 30, 45, 60, 60.5, 89.9, 90, 200]
        let marks = seconds.enumerated().map { index, second in
            TrackerFiltering.Mark(Track.fix(second, east: Double(index % 2) * 40, north: 0))
        }
        let asked = SpacedPath.askable(marks, filtering)
        for b in marks.indices {
            #expect(asked[b] <= b)
            for a in 0..<b where filtering.stores(marks[b], after: marks[a]) {
                #expect(a < asked[b], "\(filtering): \(seconds[a]) s before \(seconds[b]) s is allowed, and must be asked")
            }
        }
        if filtering == .timeBased {
            #expect(asked == [0, 0, 0, 1, 2, 4, 4, 5, 6, 9])
        }
    }

    @Test func theWeighingPrefersLessExcessToFewerPointsUnlessTheCountIsBounded() throws {
        let pairs = Self.pairs(keepingTheEndFrom2: true)
        let free = try #require(SpacedPath.choice(pairs, tolerance: 10))
        #expect(free.nodes == [1, 2] && free.endKept)
        // Three points are more than two: the one with the excess is the only track left.
        let bounded = try #require(SpacedPath.choice(pairs, atMost: 2, tolerance: 10))
        #expect(bounded.nodes == [1] && bounded.endKept)
        // One point: the chord straight to the newest fix, however far it passes.
        let one = try #require(SpacedPath.choice(pairs, atMost: 1, tolerance: 10))
        #expect(one.nodes.isEmpty && one.endKept)
        #expect(SpacedPath.choice(pairs, atMost: 0, tolerance: 10) == nil)
    }

    @Test func pairsMeasuredOutOfOrderAreWeighedInOrder() throws {
        // Into 1 is measured after out of 1: weighed as they came, the path through 1 would not
        // be reached yet, and the chord (20 m from its fixes) would be the only track.
        var pairs = SpacedPath.Pairs(count: 3)
        for (a, b, cost, over) in [(1, 2, 3.0, -5.0), (0, 1, 4.0, -5.0), (0, 2, 20.0, 10.0)] {
            pairs.measure(a, b, cost: cost, over: over)
        }
        pairs.keepsEnd = [true, true, false]
        #expect(pairs.inOrder.map { [$0.a, $0.b] } == [[0, 1], [0, 2], [1, 2]])
        let choice = try #require(SpacedPath.choice(pairs, tolerance: 10))
        #expect(choice.nodes == [1] && choice.endKept)
    }

    @Test func aStretchLeftOpenIsNotCountedAsAPointKept() throws {
        // From 2 the newest fix is not kept (the road after 2 stays open): 1 and 2 are two points.
        let bounded = try #require(SpacedPath.choice(Self.pairs(keepingTheEndFrom2: false), atMost: 2, tolerance: 10))
        #expect(bounded.nodes == [1, 2] && !bounded.endKept)
    }

    /// With a place owed, a track must keep one of the candidates that meet it, and goes on after
    /// it to the newest fix. Candidates 0 (the origin) to 4 (the newest fix, left open): nearest
    /// through 1, which meets nothing; the place is 2, and the chord from 2 to the newest fix
    /// passes 30 m from its fixes, where the track through 3 passes 5 m.
    @Test func aPlaceOwedIsMetAlongTheTrackNotOnlyAtItsEnd() throws {
        var pairs = SpacedPath.Pairs(count: 5)
        for (a, b, cost, over) in [(0, 1, 3.0, -5.0), (0, 2, 5.0, -5.0), (1, 4, 3.0, -5.0), (2, 3, 4.0, -5.0), (2, 4, 30.0, 20.0), (3, 4, 3.0, -5.0)] {
            pairs.measure(a, b, cost: cost, over: over)
        }
        pairs.keepsEnd = [false, false, false, false, false]
        let free = try #require(SpacedPath.choice(pairs, tolerance: 10))
        #expect(free.nodes == [1] && !free.endKept)
        pairs.meets = [false, false, true, false, false]
        let meeting = try #require(SpacedPath.choice(pairs, tolerance: 10))
        #expect(meeting.nodes == [2, 3] && !meeting.endKept, "\(meeting.nodes)")
        #expect(meeting.figures.worst == 5)
        // Bounded to one point, the place alone with the chord after it.
        let one = try #require(SpacedPath.choice(pairs, atMost: 1, tolerance: 10))
        #expect(one.nodes == [2] && one.figures.worst == 30)
        pairs.meets = [false, false, false, false, false]
        #expect(SpacedPath.choice(pairs, tolerance: 10) == nil, "no track meets a place no candidate meets")
    }

    /// Under TimeBased the rule leaves most segments beyond the tolerance, and a point that takes
    /// a fifth of a metre off their summed excess is not worth what the tracker bills for it;
    /// under a distance rule the excess is what keeps a bend's inside, and the point is kept.
    /// Three candidates: the last kept point, a fix, the newest fix (kept either way).
    @Test(arguments: [TrackerFiltering.timeBased, .distanceBased, .accuracyBased])
    func underTimeBasedAPointThatTakesLittleOffTheExcessIsNotKept(filtering: TrackerFiltering) throws {
        var pairs = SpacedPath.Pairs(count: 3)
        pairs.measure(0, 1, cost: 12, over: 2.0)
        pairs.measure(0, 2, cost: 12, over: 2.2)
        pairs.measure(1, 2, cost: 5, over: 0)
        pairs.keepsEnd = [true, true, false]
        let path = SpacedPath(origin: Track.fix(0), fixes: [], filtering: filtering, tolerance: 10)
        let choice = try #require(SpacedPath.choice(pairs, tolerance: 10, excessAlike: path.excessAlike))
        #expect(choice.endKept)
        #expect(choice.nodes == (filtering == .timeBased ? [] : [1]), "\(filtering): \(choice.nodes)")
    }
}

extension SpacedPathTests {
    /// Under a distance rule a choice may keep one point more than the wishes it meets; that
    /// point must buy more than a fifth of a metre of summed excess. Three candidates: the last
    /// kept point, a fix, the newest fix (kept either way); through the fix the excess is `saved`
    /// less than straight to the newest fix. With two points allowed (one wish met, one more),
    /// the fix is kept only for a saving worth a point.
    @Test(arguments: [0.1, 0.5])
    func thePointMoreThanTheWishesMetIsKeptOnlyForMoreThanAFifthOfAMetre(saved: Double) throws {
        var pairs = SpacedPath.Pairs(count: 3)
        pairs.measure(0, 1, cost: 9, over: 0.4)
        pairs.measure(0, 2, cost: 9.5, over: 0.4 + saved)
        pairs.measure(1, 2, cost: 5, over: 0)
        pairs.keepsEnd = [true, true, false]
        let free = try #require(SpacedPath.choice(pairs, mostPoints: nil, tolerance: 10, excessAlike: SpacedPath.Choice.sameExcess))
        #expect(free.nodes == [1] && free.endKept, "without a bound the least excess decides")
        let bounded = try #require(SpacedPath.choice(pairs, mostPoints: 2, tolerance: 10, excessAlike: SpacedPath.Choice.sameExcess))
        #expect(bounded.endKept)
        #expect(bounded.nodes == (saved > SpacedPath.Choice.pointWorth ? [1] : []), "\(saved) m saved: \(bounded.nodes)")
    }
}

/// A choice over more fixes than it weighs one by one (`SpacedPath.maxNodes`).
@Suite struct SpacedPathThinningTests {
    /// South at 14 m/s for 30 s, round a roundabout 25 m across at 7 m/s (ten seconds, 320°),
    /// out on a bend for 6 s, then standing `standing` seconds (a stop held in stop-and-go),
    /// with the triggers' corners owed in the roundabout and the bend.
    static func roundaboutThenStanding(_ standing: Int) -> (fixes: [Location], corners: Set<FixTime>) {
        let fixes = Track.driven(through: 45 + standing, speed: { $0 < 30 ? 14 : $0 < 46 ? 7 : 0 },
                                 heading: { 180 + 32 * Double(min(max($0 - 29, 0), 10)) })
        return (Array(fixes.dropFirst()), Set([32, 35, 38, 42].map { Track.start.adding(seconds: Double($0)) }))
    }

    /// The points the rule allows round a roundabout narrower than its 30 m lie beside the
    /// triggers' corners, not on them. Thinned evenly with only the corners kept, a choice over
    /// 130 fixes (a stop held a minute after a roundabout) missed them: an unseen random road
    /// at 1 Hz, 20.2 m from the true path under DistanceBased where 12.9 m was possible. Thinned,
    /// the choice must do as well as it does over every fix.
    @Test(arguments: [70, 85, 100, 115])
    func aThinnedChoiceFindsThePointsRoundARoundabout(standing: Int) {
        let origin = Track.fix(0, speed: 14, course: 180)
        let (short, corners) = Self.roundaboutThenStanding(10)
        let (long, _) = Self.roundaboutThenStanding(standing)
        #expect(short.count <= SpacedPath.maxNodes && long.count > 2 * SpacedPath.maxNodes - 10)
        func largest(_ fixes: [Location]) -> (distance: Double, points: [Double]) {
            let path = SpacedPath(origin: origin, fixes: fixes, filtering: .distanceBased, tolerance: 10, corners: corners)
            let chosen = path.points()
            let track = [origin] + chosen
            for (a, b) in zip(track, track.dropFirst()) { #expect(TrackerFiltering.distanceBased.stores(b, after: a)) }
            return (path.largestDistance(through: chosen + [fixes[fixes.count - 1]]), chosen.map { Track.start.seconds(to: $0.time) })
        }
        let (every, thinned) = (largest(short), largest(long))
        #expect(thinned.distance <= every.distance + 0.5,
                "thinned \(thinned.distance) m (\(thinned.points)), every fix \(every.distance) m (\(every.points))")
    }
}
