import Foundation
import Testing
import TrackingCore

/// The tracker's rule as a constraint on what the filter keeps.
@Suite struct TrackerSpacingTests {
    /// A drive of 10 m/s with a corner every 20 s, a stop of 40 s, then on again.
    static func drive() -> [Location] {
        var fixes: [Location] = []
        var (east, north) = (0.0, 0.0)
        var heading = 0
        for second in 0..<240 {
            let stopped = (100..<140).contains(second)
            if !stopped {
                if second % 20 == 0 { heading = (heading + 1) % 4 }
                let step = [(10.0, 0.0), (0.0, 10.0), (-10.0, 0.0), (0.0, -10.0)][heading]
                east += step.0
                north += step.1
            }
            fixes.append(Track.fix(Double(second), east: east, north: north, speed: stopped ? 0 : 10, course: [90.0, 0, 270, 180][heading], accuracy: 5))
        }
        return fixes
    }

    /// East for 20 s, then two minutes of a zigzag whose corners are 25 m apart (5 s legs at
    /// 5 m/s, north-north-east and south-south-east), then east for a minute: each corner is
    /// needed, and each is too close to the one before for DistanceBased's 30 m.
    static func zigzag() -> [Location] {
        Track.driven(through: 200, speed: 5) { second in
            (20..<140).contains(second) ? ((second - 20) / 5 % 2 == 0 ? 20 : 160) : 90
        }
    }

    /// East at 10 m/s from a kept point; the triggers wish for a point 20 m on, too near it for
    /// DistanceBased, so the wish is owed; 40 m further one fix is 13 m off the road. Keeping the
    /// road within the tolerance past that fix takes three points (before it, at it, after it),
    /// two more than the wish; two points leave the road 0.6 m beyond it. A choice keeps at most
    /// one point more than the wishes it meets: unseen road 5151 kept 21 points under
    /// DistanceBased against 20 without a rule, the same distance from the true path; 18 now.
    @Test func aChoiceUnderADistanceRuleKeepsAtMostOnePointMoreThanTheWishesItMeets() {
        var spacing = TrackerSpacing(filtering: .distanceBased)
        var kept = spacing.process(Track.fix(0), kept: [KeptLocation(location: Track.fix(0), trigger: .first)])
        let fixes = (1...30).map { Track.fix(Double($0), east: Double($0) * 10, north: $0 == 6 ? 13 : 0) }
        for fix in fixes {
            kept += spacing.process(fix, kept: fix.time == fixes[1].time ? [KeptLocation(location: fix, trigger: .deviation)] : [])
        }
        kept += spacing.pause()
        let seconds = kept.dropFirst().map { Track.start.seconds(to: $0.location.time) }
        #expect(!seconds.isEmpty && seconds.count <= 2, "one wish owed, at most two points for it: \(seconds)")
        #expect(spacing.withheld >= 1)
        let track = kept.map(\.location)
        for (a, b) in zip(track, track.dropFirst()) { #expect(TrackerFiltering.distanceBased.stores(b, after: a)) }
        let road = fixes.filter { $0.time <= track[track.count - 1].time && $0.latitude == Track.origin.latitude }
        let (_, farthest) = SimplificationFidelityTests.compliance(road, track: track, tolerance: 10)
        // The best two points (at the fix off the road, then past it) leave the road 0.6 m beyond
        // the tolerance, where three left none.
        #expect(farthest <= 11, "the road within a metre of the tolerance: \(farthest) m")
    }

    @Test func onATwistyRoadThePointsChosenUnderADistanceRuleGoOutWithinAFewWaits() {
        var configuration = FilterConfiguration()
        configuration.trackerFiltering = .distanceBased
        var chain = FilterChain(configuration: configuration)
        var waits: [Double] = []
        var kept: [KeptLocation] = []
        for fix in Self.zigzag() {
            let out = chain.process(fix, clock: Track.synced).kept
            waits += out.map { $0.location.time.seconds(to: fix.time) }
            kept += out
        }
        kept += chain.finish()
        for (a, b) in zip(kept, kept.dropFirst()) { #expect(TrackerFiltering.distanceBased.stores(b.location, after: a.location)) }
        #expect(kept.filter { (25...135).contains(Track.start.seconds(to: $0.location.time)) }.count >= 4, "points along the zigzag")
        // The oldest corner owed waits `maxOwed` waits (30 s), and a point chosen then needs
        // the wait (10 s) of road after it.
        #expect((waits.max() ?? 0) <= 45, "each point sent within 45 s of its fix: \(waits.map { Int($0) })")
    }

    /// `fixes` (by default `drive()`) through the filter under `filtering`, to the end.
    static func run(_ filtering: TrackerFiltering, fixes: [Location] = drive()) -> (kept: [KeptLocation], withheld: Int) {
        var configuration = FilterConfiguration()
        configuration.trackerFiltering = filtering
        var chain = FilterChain(configuration: configuration)
        var kept: [KeptLocation] = []
        for fix in fixes { kept += chain.process(fix, clock: Track.synced).kept }
        kept += chain.finish()
        return (kept, chain.counters.withheld)
    }

    @Test(arguments: [TrackerFiltering.timeBased, .distanceBased, .accuracyBased])
    func neverKeepsAPointTheTrackerWouldNotStore(filtering: TrackerFiltering) {
        let (kept, withheld) = Self.run(filtering)
        #expect(kept.count >= 3)
        for (a, b) in zip(kept, kept.dropFirst()) {
            #expect(a.location.time < b.location.time)
            #expect(filtering.stores(b.location, after: a.location), "\(a.location.time) → \(b.location.time)")
        }
        if filtering == .timeBased {
            #expect(withheld > 0, "the corners every 20 s come sooner than the rule allows")
        } else {
            #expect(withheld == 0, "corners 200 m apart are far enough for the rule: nothing held back")
        }
    }

    /// North at 8 m/s for 30 s, standing 25 s at a red light, then a U-turn to the left 24 m
    /// across (8 s), and south at 10 m/s for a minute: the U-turn's apex is 17 m from where the
    /// vehicle stood.
    static func redLightThenAUTurn() -> [Location] {
        Track.driven(through: 125, speed: { $0 < 30 ? 8 : $0 < 55 ? 0 : $0 < 63 ? Double.pi * 12 / 8 : 10 },
                     heading: { $0 < 55 ? 0 : $0 < 63 ? 360 - 22.5 * Double($0 - 54) : 180 })
    }

    /// Under a distance rule a point at the red light forbade the U-turn's apex (17 m on): the
    /// track went from the light to the first fix 30 m from it, 18.8 m off the road (an unseen
    /// random road at 1 Hz: 17.7 m from the true path under DistanceBased; 14.0 m now). A short stop is no
    /// place the vehicle stays, so its point waits while the vehicle stands (at most a minute)
    /// and, once it has left, is chosen with the road after it.
    @Test func aRedLightBeforeAUTurnDoesNotForbidTheUTurn() {
        let fixes = Self.redLightThenAUTurn()
        let track = Self.run(.distanceBased, fixes: fixes).kept.map(\.location)
        for (a, b) in zip(track, track.dropFirst()) { #expect(TrackerFiltering.distanceBased.stores(b, after: a)) }
        let fidelity = TrackFidelity(kept: track, path: fixes.map { .init(time: $0.time, latitude: $0.latitude, longitude: $0.longitude) })
        #expect(fidelity.maxDeviation < 12, "\(fidelity.maxDeviation) m from the road; kept \(track.map { Track.start.seconds(to: $0.time) })")
    }

    /// North at 8 m/s for 30 s, standing 20 s at a red light, then half round a roundabout 14 m
    /// in radius at 7 m/s (6 s), and on at 10 m/s for a minute.
    static func redLightThenARoundabout() -> [Location] {
        let rate = 7.0 / 14 * 180 / .pi
        return Track.driven(through: 116, speed: { $0 < 30 ? 8 : $0 < 50 ? 0 : $0 < 56 ? 7 : 10 },
                            heading: { $0 < 50 ? 0 : rate * Double(min($0, 55) - 49) })
    }

    /// The stop owed at the red light is met once the vehicle has moved for the wait, by its
    /// place as it pulled away. A point chosen with it in the roundabout, a second or two before
    /// the newest fix, was kept at once, the rule tied the next point to it, and the stored track
    /// passed 10.7 m from the road (the best any stored track does: 8.7 m). That point waits for
    /// the road after it.
    @Test func aPointChosenPastTheStopOwedWaitsForTheRoadAfterIt() {
        let fixes = Self.redLightThenARoundabout()
        let track = Self.run(.distanceBased, fixes: fixes).kept.map(\.location)
        for (a, b) in zip(track, track.dropFirst()) { #expect(TrackerFiltering.distanceBased.stores(b, after: a)) }
        let path = fixes.map { TrackFidelity.PathPoint(time: $0.time, latitude: $0.latitude, longitude: $0.longitude) }
        let best = BestStoredTrack.deviation(fixes, path: path, filtering: .distanceBased)
        let stored = BestStoredTrack.deviation(of: track, path: path)
        #expect(stored <= best * 1.1, "\(stored) m from the road, the best \(best) m; kept \(track.map { Track.start.seconds(to: $0.time) })")
    }

    /// Standing longer than that is being parked: the stop's point is kept where the vehicle
    /// stands, a minute after it stopped at most.
    @Test func underADistanceRuleAStopLongerThanAMinuteIsKeptWhereTheVehicleStands() {
        let fixes = Track.driven(through: 300, speed: { $0 < 30 ? 8 : 0 }, heading: { _ in 0 })
        var configuration = FilterConfiguration()
        configuration.trackerFiltering = .distanceBased
        var chain = FilterChain(configuration: configuration)
        // Each point with the second of the fix at which it was kept.
        var kept: [(at: Double, point: KeptLocation)] = []
        for fix in fixes {
            kept += chain.process(fix, clock: Track.synced).kept.map { (Track.start.seconds(to: fix.time), $0) }
        }
        let stop = kept.first { Geodesy.distance($0.point.location, fixes[200]) < 5 }
        // Stopped at 30 s, a stop after 5 s of standing, held a minute at most.
        #expect(stop.map { $0.at <= 30 + 5 + 60 + 1 } == true, "kept \(kept.map { ($0.at, $0.point.trigger) })")
    }

    /// North at 8 m/s, then `east` seconds east (a corner too near the stop for a distance rule
    /// to store both), standing from second 30 for `standing` seconds with the receiver drifting
    /// about the place as a parked receiver does: six fixes in seven 6-8 m off it (the stop's
    /// own fix among them), one within a metre, and the very last 12 m east. Returns the fixes
    /// and the place.
    static func parkedWithDrift(east: Int, standing: Int) -> (fixes: [Location], place: Location) {
        let drift = [(0.3, 0.2), (6.0, -3.0), (-6.0, 3.0), (3.0, 7.0), (-3.0, -7.0), (7.0, 2.0), (-7.0, -2.0)]
        var fixes = Track.driven(through: 29, speed: 8, heading: { $0 < 30 - east ? 0 : 90 })
        let place = (east: 8.0 * Double(east), north: 8.0 * Double(30 - east))
        for second in 30...(30 + standing) {
            let (x, y) = second == 30 + standing ? (12.0, 0.0) : drift[(second + 3) % drift.count]
            fixes.append(Track.fix(Double(second), east: place.east + x, north: place.north + y, speed: 0, course: 0, accuracy: 8))
        }
        return (fixes, Track.fix(30, east: place.east, north: place.north, speed: 0))
    }

    /// Under a distance rule the stop's point is where the vehicle stands, not the fix the
    /// stop was wished at, nor the one that happened to be newest when it was kept: kept at the
    /// end of the fixes, the last one (12 m off) was the stored track's end; kept once the
    /// vehicle had stood a minute, whichever fix came then. The same where a corner just
    /// before the stop is owed with it.
    @Test(arguments: [TrackerFiltering.distanceBased, .accuracyBased], [(0, 40), (0, 120), (3, 40), (3, 120)])
    func theStopsPointIsWhereTheParkedVehicleStands(filtering: TrackerFiltering, drive: (east: Int, standing: Int)) {
        let (fixes, place) = Self.parkedWithDrift(east: drive.east, standing: drive.standing)
        let kept = Self.run(filtering, fixes: fixes).kept.map(\.location)
        for (a, b) in zip(kept, kept.dropFirst()) { #expect(filtering.stores(b, after: a)) }
        let parked = kept.filter { Track.start.seconds(to: $0.time) >= 30 }
        #expect((1...2).contains(parked.count), "kept \(kept.map { Track.start.seconds(to: $0.time) })")
        for point in parked {
            #expect(Geodesy.distance(point, place) < 2, "\(Track.start.seconds(to: point.time)) s: \(Geodesy.distance(point, place)) m from the place")
        }
    }

    @Test func timeBasedKeepsTheStopOnceAllowedAndNearIt() {
        let (kept, _) = Self.run(.timeBased)
        let parked = Self.drive()[120]
        let atStop = kept.filter { (100.0...140.0).contains(Track.start.seconds(to: $0.location.time)) }
        #expect(atStop.count == 1, "one point for the stop: \(kept.map { Track.start.seconds(to: $0.location.time) })")
        if let point = atStop.first { #expect(Geodesy.distance(point.location, parked) < 5) }
    }

    /// From a point kept at a red light 400 m east as the vehicle arrives (the last the tracker
    /// has): standing there `standing` seconds, a stop wished for 5 s in (a fix drifted 6 m), a
    /// departure at the last fix before it moves, north for 10 s, a right-angle corner east
    /// (wished for 3 s on) and east for a minute. Returns the track from the point at the light
    /// to the end, the fixes after that point, and what the constraint held back.
    static func redLightThenACorner(_ filtering: TrackerFiltering, standing: Int) -> (track: [Location], road: [Location], withheld: Int) {
        var spacing = TrackerSpacing(filtering: filtering)
        let light = Track.fix(40, east: 400, speed: 0)
        spacing.resume(after: light)
        let (moves, turns) = (40 + standing, 50 + standing)
        var kept: [KeptLocation] = []
        var road: [Location] = []
        for second in 41...(turns + 60) {
            let t = Double(second)
            let fix = second < moves ? Track.fix(t, east: 400, north: second == 45 ? 6 : 0, speed: 0)
                : second < turns ? Track.fix(t, east: 400, north: 10 * (t - Double(moves)), course: 0)
                : Track.fix(t, east: 400 + 10 * (t - Double(turns)), north: 100)
            road.append(fix)
            let wish: KeptLocation? = switch second {
            case 45: KeptLocation(location: fix, trigger: .stop)
            case moves: KeptLocation(location: road[road.count - 2], trigger: .departure)
            case turns + 3: KeptLocation(location: road[road.count - 4], trigger: .deviation)
            default: nil
            }
            kept += spacing.process(fix, kept: wish.map { [$0] } ?? [])
        }
        kept += spacing.finish([KeptLocation(location: road[road.count - 1], trigger: .stop)])
        let track = [light] + kept.map(\.location)
        for (a, b) in zip(track, track.dropFirst()) { #expect(filtering.stores(b, after: a)) }
        return (track, road, spacing.withheld)
    }

    /// East at 10 m/s from a point kept at 0 s; a heartbeat wished at 60 s, then the corner at
    /// 65 s (wished 3 s later, once the fixes turn it), north after it, to the end at 100 s.
    /// With `bend`, the road already bends north-east at 60 s, so the straight line to the corner
    /// passes 33 m from the heartbeat's fix.
    static func heartbeatThenACorner(_ filtering: TrackerFiltering, bend: Bool = false) -> (seconds: [Double], withheld: Int, farthest: Double) {
        func place(_ t: Double) -> (east: Double, north: Double) {
            if bend, t > 60 { return (600 + 7.07 * (t - 60), 7.07 * (t - 60)) }
            return t <= 65 ? (10 * t, 0) : (650, 10 * (t - 65))
        }
        let road = (1...100).map { second in
            let (east, north) = place(Double(second))
            return Track.fix(Double(second), east: east, north: north, course: second <= 60 || (!bend && second <= 65) ? 90 : bend ? 45 : 0)
        }
        return replay(filtering, road: road, wishes: [60: (60, .heartbeat), 68: (65, .deviation)])
    }

    /// `road` (a fix each second from 1 s, after a point kept at 0 s) through the spacing alone
    /// under `filtering`, the triggers' wishes by the second each comes (the fix's second and its
    /// trigger), and a final point at the end: the seconds of the points kept, what the
    /// constraint held back, and the farthest fix from the track. With `switchTo`, the rule
    /// changes to its filtering after the fix of its second.
    static func replay(_ filtering: TrackerFiltering, road: [Location], wishes: [Int: (fix: Int, trigger: KeepTrigger)],
                       switchTo: (second: Int, filtering: TrackerFiltering)? = nil) -> (seconds: [Double], withheld: Int, farthest: Double)
    {
        var spacing = TrackerSpacing(filtering: filtering)
        let start = Track.fix(0)
        spacing.resume(after: start)
        var kept: [KeptLocation] = []
        for (index, fix) in road.enumerated() {
            let wish = wishes[index + 1].map { KeptLocation(location: road[$0.fix - 1], trigger: $0.trigger) }
            kept += spacing.process(fix, kept: wish.map { [$0] } ?? [])
            if let switchTo, switchTo.second == index + 1 { spacing.filtering = switchTo.filtering }
        }
        kept += spacing.finish([KeptLocation(location: road[road.count - 1], trigger: .final)])
        let track = [start] + kept.map(\.location)
        for (a, b) in zip(track, track.dropFirst()) { #expect(spacing.filtering.stores(b, after: a)) }
        let (_, farthest) = SimplificationFidelityTests.compliance(road, track: track, tolerance: 10)
        return (kept.map { Track.start.seconds(to: $0.location.time) }, spacing.withheld, farthest)
    }

    /// Without a rule a corner due just after a heartbeat stands in for it (`MotionTriggers`);
    /// under a distance rule both were kept when they lay far enough apart for the tracker (an
    /// unseen random road at 5 Hz: 41 points under DistanceBased against 39 without a rule).
    @Test(arguments: [TrackerFiltering.distanceBased, .accuracyBased])
    func aHeartbeatHeldIsMetByTheCornerWishedJustAfterIt(filtering: TrackerFiltering) {
        let (seconds, withheld, farthest) = Self.heartbeatThenACorner(filtering)
        #expect(seconds == [65, 100], "the corner, then the end, no heartbeat at 60 s: \(seconds)")
        #expect(withheld == 1, "the heartbeat, held back and counted")
        #expect(farthest < 1, "the road on the track: \(farthest) m")
    }

    /// Where the straight line from the last point to the corner would leave the fixes before it
    /// (the road bends at the heartbeat), the heartbeat's point stays: it is the road's shape.
    @Test(arguments: [TrackerFiltering.distanceBased, .accuracyBased])
    func aHeartbeatWhereTheRoadBendsIsKept(filtering: TrackerFiltering) {
        let (seconds, _, farthest) = Self.heartbeatThenACorner(filtering, bend: true)
        #expect(seconds.first == 60, "the heartbeat, where the road bends: \(seconds)")
        #expect(farthest <= 10, "every fix within the tolerance: \(farthest) m")
    }

    /// East at 10 m/s from a point kept at 0 s; a heartbeat wished at 58 s; from 60 s a U-turn to
    /// the left 30 m across at 5 m/s (9.4 s), its corners wished at 63 s and 66 s; then west at
    /// 10 m/s to the end at 120 s. Returns the seconds of the points kept and the farthest fix
    /// from the track.
    static func heartbeatThenAUTurn(_ filtering: TrackerFiltering) -> (seconds: [Double], farthest: Double) {
        let (radius, turnSpeed) = (15.0, 5.0)
        let turnSeconds = Double.pi * radius / turnSpeed
        func place(_ t: Double) -> (east: Double, north: Double, course: Double, speed: Double) {
            if t <= 60 { return (10 * t, 0, 90, 10) }
            guard t > 60 + turnSeconds else {
                let angle = (t - 60) * turnSpeed / radius
                return (600 + radius * sin(angle), radius - radius * cos(angle), (450 - angle * 180 / .pi).truncatingRemainder(dividingBy: 360), turnSpeed)
            }
            return (600 - 10 * (t - 60 - turnSeconds), 2 * radius, 270, 10)
        }
        let road = (1...120).map { second in
            let (east, north, course, speed) = place(Double(second))
            return Track.fix(Double(second), east: east, north: north, speed: speed, course: course)
        }
        let replayed = replay(filtering, road: road, wishes: [58: (58, .heartbeat), 63: (61, .deviation), 66: (64, .deviation)])
        return (replayed.seconds, replayed.farthest)
    }

    /// The heartbeat's wait ran out at 68 s, while the vehicle was in the U-turn: the choice then
    /// kept 62 s with the stretch after it open, though no fix yet was 30 m from it, and the rule
    /// put the next point at 70 s, across the U-turn 12.6 m from the road (an unseen random road
    /// at 1 Hz under AccuracyBased: 15.5 m from the true path; 11.2 m now). Under a distance rule
    /// such a last point waits until a fix comes that the tracker would store after it, and is
    /// chosen again then, with the stretch it opens measured.
    @Test func aPointWhoseNextTheRuleDoesNotYetAllowIsChosenOnceItDoes() {
        let (seconds, farthest) = Self.heartbeatThenAUTurn(.distanceBased)
        #expect(farthest <= 10, "every fix within the tolerance: \(farthest) m; kept \(seconds)")
        #expect(seconds.first.map { $0 >= 58 && $0 <= 62 } ?? false, "the heartbeat met before the U-turn: \(seconds)")
    }

    /// East at 10 m/s from a point kept at 0 s; a heartbeat wished at 60 s, 600 m east, where the
    /// vehicle stops (a red light: a stop wished 5 s later); standing until 90 s, then north to
    /// the end at 150 s. Returns the seconds of the points kept and what the constraint held back.
    static func heartbeatThenAStop(_ filtering: TrackerFiltering) -> (seconds: [Double], withheld: Int) {
        var spacing = TrackerSpacing(filtering: filtering)
        spacing.resume(after: Track.fix(0))
        var kept: [KeptLocation] = []
        var last = Track.fix(0)
        for second in 1...150 {
            let t = Double(second)
            let fix = second <= 60 ? Track.fix(t, east: 10 * t)
                : second <= 90 ? Track.fix(t, east: 600, speed: 0)
                : Track.fix(t, east: 600, north: 10 * (t - 90), course: 0)
            let wish: KeptLocation? = switch second {
            case 60: KeptLocation(location: fix, trigger: .heartbeat)
            case 65: KeptLocation(location: fix, trigger: .stop)
            default: nil
            }
            kept += spacing.process(fix, kept: wish.map { [$0] } ?? [])
            last = fix
        }
        kept += spacing.finish([KeptLocation(location: last, trigger: .final)])
        return (kept.map { Track.start.seconds(to: $0.location.time) }, spacing.withheld)
    }

    /// Without a rule a stop within the triggers' grace stands in for the heartbeat due before
    /// it; under a rule the heartbeat wished a second before a red light's stop kept a point on
    /// the approach and one where the vehicle was once it had left (an unseen random road at
    /// 5 Hz under AccuracyBased: 22 points against 21 without a rule).
    @Test(arguments: [TrackerFiltering.timeBased, .distanceBased, .accuracyBased])
    func aHeartbeatJustBeforeAStopIsMetByTheStop(filtering: TrackerFiltering) {
        let (seconds, withheld) = Self.heartbeatThenAStop(filtering)
        #expect(seconds.count == 2, "one point where the vehicle stood, then the end: \(seconds)")
        #expect(seconds.first.map { (60...90).contains($0) } == true, "the first point at the light: \(seconds)")
        #expect(seconds.last == 150, "\(seconds)")
        #expect(withheld == 1, "the heartbeat, not kept, counted: \(withheld)")
    }

    /// A stop and a departure where the last point kept stands add nothing the tracker lacks.
    /// Under TimeBased their points forbade the corner as the vehicle pulled away (a random road
    /// of our own at 5 Hz: 98.8 m from the true path; 27.5 m now); under a distance rule the
    /// tracker would not store them, and one was owed, then met by a point more.
    @Test(arguments: [TrackerFiltering.timeBased, .distanceBased, .accuracyBased])
    func aRedLightsStopAndDepartureAreMetByThePointKeptThere(filtering: TrackerFiltering) {
        let (track, road, withheld) = Self.redLightThenACorner(filtering, standing: 35)
        let fidelity = TrackFidelity(kept: track, path: road.map { .init(time: $0.time, latitude: $0.latitude, longitude: $0.longitude) })
        let seconds = track.map { Track.start.seconds(to: $0.time) }
        // Before: under TimeBased the stop at 70 s and the departure at 100 s, the corner (85 s)
        // cut by 83 m.
        #expect(fidelity.maxDeviation < 1, "\(fidelity.maxDeviation) m from the road; kept \(seconds)")
        #expect(seconds.dropFirst().first == 85 && seconds.count == 3, "the corner, then the end: \(seconds)")
        #expect(withheld == 2, "the stop and the departure, held back and counted")
    }

    /// After standing longer than a minute, when the vehicle left is news: under a distance rule
    /// the departure is owed and met by the first fix the tracker stores as the vehicle leaves.
    @Test func aDepartureAfterALongerStopIsStillMet() {
        let (track, _, _) = Self.redLightThenACorner(.distanceBased, standing: 180)
        let seconds = track.map { Track.start.seconds(to: $0.time) }
        // It leaves at 220 s; 30 m north of the light at 224 s.
        #expect(seconds.count == 4 && seconds[1] == 224, "a point as the vehicle leaves, then the corner: \(seconds)")
    }

    @Test func noneKeepsWhatTheTriggersKeep() {
        let (kept, withheld) = Self.run(.none)
        var triggers = MotionTriggers(configuration: FilterConfiguration())
        var expected: [KeptLocation] = []
        for fix in Self.drive() { expected += triggers.process(fix) }
        expected += triggers.finish()
        #expect(kept == expected)
        #expect(withheld == 0)
    }

    @Test(arguments: [TrackerFiltering.timeBased, .distanceBased, .accuracyBased])
    func aHeartbeatEverySecondStillKeepsAPointEveryThirtySecondsOrThirtyMetres(filtering: TrackerFiltering) {
        var configuration = FilterConfiguration()
        configuration.trackerFiltering = filtering
        configuration.maxInterval = 1
        configuration.stationaryInterval = 1
        configuration.minInterval = 0
        var chain = FilterChain(configuration: configuration)
        var kept: [KeptLocation] = []
        // A straight road at 2 m/s: a heartbeat wish every second, each too close to the last.
        for second in 0..<300 {
            kept += chain.process(Track.fix(Double(second), east: Double(second) * 2, speed: 2, course: 90), clock: Track.synced).kept
        }
        kept += chain.finish()
        #expect(kept.first?.location.time == Track.start, "the first point at once")
        #expect(kept.count >= 8, "\(filtering): \(kept.count) kept")
        for (a, b) in zip(kept, kept.dropFirst()) { #expect(filtering.stores(b.location, after: a.location)) }
    }

    @Test func whenTheFixesStopTheHeldPointIsKeptAtOnce() {
        var configuration = FilterConfiguration()
        configuration.trackerFiltering = .distanceBased
        var chain = FilterChain(configuration: configuration)
        var kept: [KeptLocation] = []
        // A corner, then the receiver goes away right after it.
        for second in 0..<40 {
            let east = Double(min(second, 20)) * 10, north = Double(max(0, second - 20)) * 10
            kept += chain.process(Track.fix(Double(second), east: east, north: north, speed: 10, course: second < 20 ? 90 : 0), clock: Track.synced).kept
        }
        let before = kept.count
        let paused = chain.pause()
        #expect(!paused.isEmpty, "the held corner or the owed point goes now, not with the next fix")
        #expect(paused.allSatisfy { p in kept.last.map { TrackerFiltering.distanceBased.stores(p.location, after: $0.location) } ?? true })
        #expect(chain.pause().isEmpty, "nothing twice")
        #expect(before >= 1)
    }

    /// Each rule past its bound (with `formulaMargin`, 0.6 % for the distance rules) and short
    /// of it; at the bound itself the numbers as they travel decide (`WirePrecisionTests`).
    @Test func theRuleItself() {
        let a = Track.fix(0, accuracy: 10)
        #expect(TrackerFiltering.timeBased.stores(Track.fix(30, east: 0), after: a))
        #expect(!TrackerFiltering.timeBased.stores(Track.fix(29.9, east: 500), after: a))
        #expect(TrackerFiltering.distanceBased.stores(Track.fix(1, east: 30.3), after: a))
        #expect(!TrackerFiltering.distanceBased.stores(Track.fix(100, east: 29), after: a))
        #expect(!TrackerFiltering.distanceBased.stores(Track.fix(100, east: 30.1), after: a), "past 30 m, within the margin")
        #expect(TrackerFiltering.accuracyBased.stores(Track.fix(1, east: 16.2, accuracy: 6), after: a))
        #expect(!TrackerFiltering.accuracyBased.stores(Track.fix(1, east: 15, accuracy: 6), after: a))
        #expect(TrackerFiltering.accuracyBased.stores(Track.fix(1, east: 10.5, accuracy: nil), after: a), "a missing accuracy counts as 0")
        #expect(TrackerFiltering.none.stores(a, after: a))
    }

    /// A service that measures on the WGS84 ellipsoid finds a short step of `d` metres on our
    /// sphere to be d × R / 6,371,008.8, where R is the ellipsoid's radius of curvature in the
    /// step's direction (between the meridian's M and the prime vertical's N). At every latitude
    /// and direction, a step the margin lets through is at least 30 m there too.
    @Test func theMarginCoversAServiceThatMeasuresOnTheEllipsoid() {
        let a = 6_378_137.0, flattening = 1 / 298.257223563
        let e2 = flattening * (2 - flattening)
        var shortest = Double.infinity
        for latitude in stride(from: 0.0, through: 90, by: 5) {
            let s = sin(latitude * .pi / 180), w = (1 - e2 * s * s).squareRoot()
            let m = a * (1 - e2) / (w * w * w), n = a / w
            for azimuth in stride(from: 0.0, through: 90, by: 5) {
                let c = cos(azimuth * .pi / 180), t = sin(azimuth * .pi / 180)
                let radius = 1 / (c * c / m + t * t / n)
                shortest = min(shortest, TrackerFiltering.distance * TrackerFiltering.formulaMargin * radius / Geodesy.earthRadius)
            }
        }
        #expect(shortest >= TrackerFiltering.distance, "\(shortest)")
        #expect(shortest < TrackerFiltering.distance + 0.05, "and not much more: \(shortest)")
    }

    /// East at 10 m/s for 60 s, then north: with `max-interval` 58 s the heartbeat falls 20 m
    /// before the corner, and with accuracies of 20 m AccuracyBased stores points 40 m apart.
    @Test func aHeartbeatDueJustBeforeACornerIsMetByTheCorner() throws {
        var configuration = FilterConfiguration()
        configuration.trackerFiltering = .accuracyBased
        configuration.maxInterval = 58
        var chain = FilterChain(configuration: configuration)
        var fixes: [Location] = []
        for second in 0...110 {
            let (east, north) = second <= 60 ? (Double(second) * 10, 0.0) : (600, Double(second - 60) * 10)
            fixes.append(Track.fix(Double(second), east: east, north: north, speed: 10, course: second <= 60 ? 90 : 0, accuracy: 20))
        }
        var kept: [KeptLocation] = []
        for fix in fixes { kept += chain.process(fix, clock: Track.synced).kept }
        kept += chain.finish()
        for (a, b) in zip(kept, kept.dropFirst()) { #expect(TrackerFiltering.accuracyBased.stores(b.location, after: a.location)) }
        let plane = LocalPlane(latitude: fixes[0].latitude, longitude: fixes[0].longitude)
        let corner = try #require(kept.first { abs(plane.project($0.location).x - 600) < 1 && abs(plane.project($0.location).y) < 1 },
                                  "the corner kept: \(kept.map { plane.project($0.location) })")
        #expect(corner.trigger == .heartbeat || corner.trigger == .deviation)
        let (_, farthest) = SimplificationFidelityTests.compliance(fixes, track: kept.map(\.location), tolerance: 10)
        #expect(farthest < 1, "the track through the corner: \(farthest) m")
        #expect(chain.counters.withheld >= 1, "the heartbeat too close to the corner was held back")
    }
}

/// Under TimeBased a point forbids any other for 30 s, so the choice must have seen the road for
/// that long after the point it commits to.
@Suite struct TrackerSpacingTimeBasedTests {
    /// At 15 m/s: east for 40 s, a bend of 30°, on for 15 s, a right-angle corner, on for a
    /// minute. The bend and the corner are 15 s apart: one point can stand for only one.
    static func drive() -> [Location] {
        Track.driven(through: 120, speed: 15) { $0 < 40 ? 90 : $0 < 55 ? 120 : 210 }
    }

    /// The drive's track under TimeBased, each point one the tracker stores, and how far it
    /// passes from the fixes (which lie on the road).
    static func timeBasedTrack(_ fixes: [Location]) -> (track: [Location], fidelity: TrackFidelity) {
        let track = TrackerSpacingTests.run(.timeBased, fixes: fixes).kept.map(\.location)
        for (a, b) in zip(track, track.dropFirst()) { #expect(TrackerFiltering.timeBased.stores(b, after: a)) }
        return (track, TrackFidelity(kept: track, path: fixes.map { .init(time: $0.time, latitude: $0.latitude, longitude: $0.longitude) }))
    }

    @Test func aCornerSoonAfterAChosenPointIsSeenBeforeThePointIsKept() {
        let (track, fidelity) = Self.timeBasedTrack(Self.drive())
        // A point at the bend leaves the corner cut by 159 m; one at the corner, the bend by 84 m
        // (the best any points 30 s apart do is 66 m).
        #expect(fidelity.maxDeviation < 100, "\(fidelity.maxDeviation) m from the road, at \(fidelity.worstTime?.iso8601 ?? "-"); kept \(track.map(\.time.iso8601))")
    }

    /// Stop-and-go, then a corner: east at 10 m/s, standing 15 s at 100 m (a stop, 15 s after the
    /// first point, so the rule holds it back), on east from 25 s, a right-angle corner north at
    /// 250 m (40 s), on north for a minute.
    static func stopAndGoThenACorner() -> [Location] {
        (0...100).map { second in
            let t = Double(second)
            switch second {
            case ..<10: return Track.fix(t, east: 10 * t, speed: 10, course: 90)
            case ..<25: return Track.fix(t, east: 100, speed: 0, course: 90)
            case ..<40: return Track.fix(t, east: 100 + 10 * (t - 24), speed: 10, course: 90)
            default: return Track.fix(t, east: 250, north: 10 * (t - 40), speed: 10, course: 0)
            }
        }
    }

    /// When the rule allows the stop's point the vehicle has left: the newest fix then is no
    /// place where it stood, only a point that forbids the corner 10 s on (a suburb's
    /// stop-and-go of our own under TimeBased: 152.6 m from the true path; 66.7 m with it, the best
    /// 62.6 m). Such a stop is met like a heartbeat, by the best fix since it, once the road
    /// after the first allowed fix is seen; the stretch where it stood is on the chosen track.
    @Test func aStopTheVehicleHasLeftWhenItIsAllowedDoesNotForbidTheCornerAfterIt() {
        let (track, fidelity) = Self.timeBasedTrack(Self.stopAndGoThenACorner())
        // With the stop's point at the newest fix once allowed (30 s, 150 m east), the corner was cut by 82 m.
        #expect(fidelity.maxDeviation < 20, "\(fidelity.maxDeviation) m from the road, at \(fidelity.worstTime?.iso8601 ?? "-"); kept \(track.map { Track.start.seconds(to: $0.time) })")
    }

    /// East at 25 m/s for 72 s, then a bend of 90° to the left over 6 s, on north for a minute
    /// and a half: the heartbeat falls due (60 s after the first point) 12 s before the bend.
    static func heartbeatBeforeABend() -> [Location] {
        Track.driven(through: 170, speed: 25) { 90 - 15 * Double(min(max($0 - 71, 0), 6)) }
    }

    /// A heartbeat is held for the 30 s its point forbids, as a corner is: the bend within them
    /// meets it. Decided 15 s after it fell due, it was chosen before the bend came, and the bend
    /// was cut by 72 m (the best any points 30 s apart do here: 33.5 m, as now). A highway of our
    /// own: 119.4 m from the true path; 63.6 m now, the best 58.8 m.
    @Test func aHeartbeatIsHeldForTheThirtySecondsItForbidsSoTheBendWithinThemMeetsIt() {
        let (track, fidelity) = Self.timeBasedTrack(Self.heartbeatBeforeABend())
        #expect(fidelity.maxDeviation < 40, "\(fidelity.maxDeviation) m from the road, at \(fidelity.worstTime?.iso8601 ?? "-"); kept \(track.map { Track.start.seconds(to: $0.time) })")
    }

    /// Standing 50 s, then east at 12 m/s; a bend of 30° at 78 s, and from 95 s a right-angle
    /// corner every 12 s, left and right, to 170 s; then east again. The heartbeat falls due at
    /// 60 s, as the vehicle gets going.
    static func heartbeatBeforeARunOfCorners() -> [Location] {
        Track.driven(through: 280, speed: { $0 < 50 ? 0 : 12 }) { second in
            second < 78 || second >= 170 ? 90 : second < 95 ? 60 : ((second - 95) / 12) % 2 == 0 ? 150 : 60
        }
    }

    /// A heartbeat owed with a bend is chosen at the bend (76 s) and put off until its 30 s are
    /// seen, and must then be met no later; the corners after it keep the choice waiting. Made
    /// once they end, the choice weighs the whole road since: the heartbeat's point is the one
    /// the track through every corner needs, not the one nearest the chord to the newest fix.
    /// Measured along that chord, the point went at 76 s and forbade the first corner (76.5 m
    /// from the road, the best any points 30 s apart do here 50.9 m); the suburb at 5 Hz of our
    /// own, whose heartbeat falls due as it leaves its parking place, 102.2 m from the true path
    /// (56.7 m now; segment by segment 60.5 m, the best 57.1 m).
    @Test func aHeartbeatPutOffIsChosenForTheRoadAfterIt() {
        let fixes = Self.heartbeatBeforeARunOfCorners()
        let (track, _) = Self.timeBasedTrack(fixes)
        let path = fixes.map { TrackFidelity.PathPoint(time: $0.time, latitude: $0.latitude, longitude: $0.longitude) }
        // Both segment by segment, each point of the road against the segment of its time.
        let (deviation, best) = (BestStoredTrack.deviation(of: track, path: path),
                                 BestStoredTrack.deviation(fixes, path: path, filtering: .timeBased, reaching: track.last?.time))
        let seconds = track.map { Track.start.seconds(to: $0.time) }
        #expect(seconds.contains { (60...76).contains($0) }, "the heartbeat met between 60 and 76 s: \(seconds)")
        #expect(deviation <= 1.2 * best, "\(deviation) m from the road against the best \(best) m; kept \(seconds)")
    }

    /// East at 15 m/s for 40 s, a right-angle corner north at 600 m, on north for 10 s, then
    /// standing a minute and a half: the stop comes 10 s after the corner.
    static func cornerThenAStop() -> [Location] {
        Track.driven(through: 140, speed: { $0 < 50 ? 15 : 0 }, heading: { $0 < 40 ? 90 : 0 })
    }

    /// Where the vehicle stands at a stop owed just after a corner, the corner is chosen first
    /// and the stop kept from a standing fix 30 s on: the stop's point at once forbade the
    /// corner 10 s before it (a random road of our own at 5 Hz: 96.5 m from the true path;
    /// 63.9 m now, the best 55.9 m).
    @Test func aStopJustAfterACornerWaitsWhereTheVehicleStandsSoTheCornerIsKept() {
        let (track, fidelity) = Self.timeBasedTrack(Self.cornerThenAStop())
        #expect(fidelity.maxDeviation < 10, "\(fidelity.maxDeviation) m from the road, at \(fidelity.worstTime?.iso8601 ?? "-"); kept \(track.map { Track.start.seconds(to: $0.time) })")
    }

    /// East at 10 m/s for `at` seconds, standing `standing` seconds at a red light, on east for
    /// `then` seconds, a right-angle corner north, north for a minute and a half.
    static func redLightThenACorner(at light: Int, standing: Int, then straight: Int = 10) -> [Location] {
        let leaves = light + standing
        return Track.driven(through: leaves + straight + 90, speed: { (light..<leaves).contains($0) ? 0 : 10 },
                            heading: { $0 < leaves + straight ? 90 : 0 })
    }

    /// A halt (a red light of 12 s, its stop wished 5 s in) is no place the vehicle stays. At
    /// 30 s its stop was held for the wait (15 s) and kept before the corner 10 s past the light
    /// was seen; at 20 s, owed (the rule forbids 30 s after the first point), it was met at once
    /// where the vehicle stood when the rule allowed it. Either way the point forbade the next
    /// 30 s and the corner was cut by 79 and 87 m (a random road of our own at 1 Hz, a light
    /// before an S-curve: 52.0 m from the true path, 38.3 m now). A stop the vehicle stays at
    /// for 25 s keeps its point where it stood.
    @Test(arguments: [(30, 12, false), (20, 12, false), (30, 25, true), (20, 25, true)])
    func aHaltAtARedLightIsNoPlaceTheVehicleStays(light: Int, standing: Int, kept: Bool) {
        let fixes = Self.redLightThenACorner(at: light, standing: standing)
        let (track, fidelity) = Self.timeBasedTrack(fixes)
        let seconds = track.map { Track.start.seconds(to: $0.time) }
        let atTheLight = seconds.filter { (Double(light)..<Double(light + standing)).contains($0) }
        if kept {
            #expect(atTheLight.count == 1, "one point where the vehicle stood: \(seconds)")
        } else {
            #expect(atTheLight.isEmpty, "no point where it halted: \(seconds)")
            #expect(fidelity.maxDeviation < 5, "\(fidelity.maxDeviation) m from the road, at \(fidelity.worstTime?.iso8601 ?? "-"); kept \(seconds)")
            #expect(TrackerSpacingTests.run(.timeBased, fixes: fixes).withheld >= 1, "the halt's stop held back and counted")
        }
    }

    /// A halt owed is not met later either: with 25 s of straight road after the light, the
    /// track goes from the first point to the corner. (Met as a stop the vehicle had left, by a
    /// fix once the road after it was seen, it kept a point 13 s after the vehicle left the
    /// light, whose 30 s cut the corner by 100 m.)
    @Test(arguments: [20, 30])
    func aHaltIsNotMetLater(light: Int) {
        let corner = Double(light + 12 + 25)
        let (track, fidelity) = Self.timeBasedTrack(Self.redLightThenACorner(at: light, standing: 12, then: 25))
        let seconds = track.map { Track.start.seconds(to: $0.time) }
        #expect(Array(seconds.prefix(2)) == [0, corner], "the first point, then the corner: \(seconds)")
        #expect(fidelity.maxDeviation < 5, "\(fidelity.maxDeviation) m from the road; kept \(seconds)")
    }

    /// From a point kept at 0 s: east at 10 m/s to a red light 300 m on (30 s), a halt of 12 s
    /// there (its stop wished 5 s in), the departure wished as it pulls away (at 43 s: its last
    /// standing fix, 41 s), a right-angle corner north `corner` seconds after the light (wished 3
    /// s on), and north for 90 s, through the spacing alone under TimeBased
    /// (`TrackerSpacingTests.replay`). The wishes are the triggers' when they judge from the
    /// point 300 m back. With `switchTo`, the tracker's rule changes as the vehicle moves on
    /// (42 s); with `departure`, the departure is wished then instead.
    static func haltWithItsDeparture(corner after: Int, switchTo: TrackerFiltering? = nil, departure: Int = 43)
        -> (seconds: [Double], farthest: Double)
    {
        let corner = 42 + after
        let road = (1...(corner + 90)).map { second in
            let t = Double(second)
            return second < 30 ? Track.fix(t, east: 10 * t)
                : second < 42 ? Track.fix(t, east: 300, speed: 0)
                : second < corner ? Track.fix(t, east: 300 + 10 * (t - 41))
                : Track.fix(t, east: 300 + 10 * Double(corner - 41), north: 10 * (t - Double(corner)), course: 0)
        }
        let wishes: [Int: (fix: Int, trigger: KeepTrigger)] = [35: (35, .stop), departure: (departure - 2, .departure), corner + 3: (corner, .deviation)]
        let replayed = TrackerSpacingTests.replay(.timeBased, road: road, wishes: wishes, switchTo: switchTo.map { (42, $0) })
        return (replayed.seconds, replayed.farthest)
    }

    /// The departure from a halt is no place either: kept, it forbade the corner past the light
    /// (10 s past it, met 3 s late, 29.9 m from the road; 20 s past it, cut by 82.7 m).
    @Test(arguments: [10, 20])
    func theDepartureFromAHaltIsNoPlaceEither(corner: Int) {
        let (seconds, farthest) = Self.haltWithItsDeparture(corner: corner)
        #expect(!seconds.contains { (30.0..<42.0).contains($0) }, "no point for the halt nor its departure: \(seconds)")
        #expect(farthest < 5, "\(farthest) m from the road; kept \(seconds)")
    }

    /// A halt passed over under TimeBased says nothing of the departure once the rule has
    /// changed (the tracker asked again): under DistanceBased it is kept where the vehicle stood.
    @Test func aHaltPassedOverUnderTimeBasedLeavesTheDepartureToTheNewRule() {
        let (seconds, _) = Self.haltWithItsDeparture(corner: 20, switchTo: .distanceBased)
        #expect(seconds.contains(41), "the departure, at the last fix where it stood: \(seconds)")
    }

    /// Only the departure wished as the vehicle moves on is the halt's: one wished a minute later
    /// (from a stop the triggers wished no point for) is kept.
    @Test func aDepartureLongAfterTheHaltIsNotTheHalts() {
        let (seconds, _) = Self.haltWithItsDeparture(corner: 20, departure: 100)
        #expect(seconds.contains(98), "the departure wished at 100 s, at 98 s: \(seconds)")
    }

    /// East at 15 m/s for 65 s, then a loop turning 8° a second for 30 s, then straight on.
    static func loop() -> [Location] {
        Track.driven(through: 180, speed: 15) { 90 + 8 * Double(min(max($0 - 64, 0), 30)) }
    }

    /// A choice of two points made late (the first allowed fix long past) whose second is
    /// younger than the 30 s it forbids: the first stands, the second is chosen again once the
    /// road after it is seen. Keeping both at once put a point at 68 s, the loop's first
    /// seconds, and nothing could stand in the loop until 98 s (162 m from the road); a random
    /// road of our own at 5 Hz was cut by 214 m so (80.6 m now, the best 73.5 m).
    @Test func theLastOfSeveralPointsChosenTogetherIsChosenAgainOnceItsThirtySecondsAreSeen() {
        let (track, fidelity) = Self.timeBasedTrack(Self.loop())
        #expect(fidelity.maxDeviation < 120, "\(fidelity.maxDeviation) m from the road; kept \(track.map { Track.start.seconds(to: $0.time) })")
    }
}
