import Foundation
import Testing
import TrackingCore

/// Where a receiver's fix stands off the vehicle, read from its fixes against the path its own
/// velocity reckons.
@Suite struct ReceiverOffsetTests {
    /// How the receiver's velocity relates to the vehicle's motion between two fixes.
    enum Motion {
        /// The vehicle moved with the velocity reported at the later fix (a receiver, or a
        /// generator, whose velocity is that of the second before its fix).
        case withTheLaterVelocity
        /// The vehicle moved with the mean of the velocities at both fixes (velocity of the instant).
        case withTheMeanVelocity
    }

    /// A drive at `speed` m/s, one fix every `interval` seconds for `seconds`: straight at 20°,
    /// from second 60 a right-hand curve of 3°/s for 40 s, then straight. Each fix stands off the
    /// vehicle by `offset(second, course)` (metres east, north); the velocity reported is exact.
    static func drive(_ motion: Motion, seconds: Double = 130, interval: Double = 1, speed: Double = 28,
                      offset: (Double, Double) -> (x: Double, y: Double)) -> [(fix: Location, offset: (x: Double, y: Double))] {
        func course(_ t: Double) -> Double { 20 + 3 * min(40, max(0, t - 60)) }
        var (east, north) = (0.0, 0.0)
        var out: [(fix: Location, offset: (x: Double, y: Double))] = []
        var t = 0.0
        while t <= seconds {
            if t > 0 {
                let later = course(t) * .pi / 180, earlier = course(t - interval) * .pi / 180
                switch motion {
                case .withTheLaterVelocity:
                    east += speed * interval * sin(later)
                    north += speed * interval * cos(later)
                case .withTheMeanVelocity:
                    east += speed * interval * (sin(later) + sin(earlier)) / 2
                    north += speed * interval * (cos(later) + cos(earlier)) / 2
                }
            }
            let o = offset(t, course(t))
            out.append((Track.fix(t, east: east + o.x, north: north + o.y, speed: speed, course: course(t)), o))
            t += interval
        }
        return out
    }

    /// A receiver's slow wander (about 1.5 m an axis) and, from second 75 to 100, in the curve,
    /// 8 m to the right of the road: its inside.
    static func wanderAndExcursion(_ t: Double, _ course: Double) -> (x: Double, y: Double) {
        let wander = (x: 1.5 * sin(t / 7), y: 1.2 * cos(t / 5))
        guard t >= 75, t < 100 else { return wander }
        let c = course * .pi / 180
        return (wander.x + 8 * cos(c), wander.y - 8 * sin(c))
    }

    /// How far what was read lies from each fix's true offset, by second of the drive.
    static func misses(_ drive: [(fix: Location, offset: (x: Double, y: Double))]) -> [(second: Double, miss: Double)] {
        var reader = ReceiverOffset()
        return drive.compactMap { fix, offset in
            reader.read(fix, movingSpeed: 2).map { seen in
                (Track.start.seconds(to: fix.time), ((seen.x - offset.x) * (seen.x - offset.x) + (seen.y - offset.y) * (seen.y - offset.y)).squareRoot())
            }
        }
    }

    /// The largest of `misses` in `seconds`.
    static func largest(_ misses: [(second: Double, miss: Double)], in seconds: Range<Double>) -> Double {
        misses.filter { seconds.contains($0.second) }.map(\.miss).max() ?? .infinity
    }

    @Test(arguments: [Motion.withTheLaterVelocity, .withTheMeanVelocity])
    func aFixStandingOffTheRoadIsReadWhicheverWayTheVelocityIsMeant(motion: Motion) {
        // The wrong reading of the velocity reckons a path that drifts 0.7 m a second sideways in
        // the curve: what it read would be metres off there.
        let drive = Self.drive(motion, offset: Self.wanderAndExcursion)
        let misses = Self.misses(drive)
        #expect(misses.count == drive.count - 20, "told from 20 s on")
        // Up to the excursion and through its first 15 s, within 1.5 m; once the excursion has
        // lasted longer than the newest seconds left out of the average, the average takes some
        // of it in, and what is read falls short by up to a third of it (and errs the other way
        // as long after it).
        #expect(Self.largest(misses, in: 20..<90) <= 1.5, "\(misses)")
        #expect(Self.largest(misses, in: 90..<131) <= 3.5, "\(misses)")
    }

    @Test func anOffsetThatLastsIsNotAveragedIntoItsOwnReference() {
        // 14 s into the excursion the average has not taken it in: read within 1.2 m (2.2 m off
        // with every reading averaged at once).
        let misses = Self.misses(Self.drive(.withTheLaterVelocity, offset: Self.wanderAndExcursion))
        #expect(Self.largest(misses, in: 89..<90) <= 1.2, "\(misses)")
    }

    @Test func atTenHertzToo() {
        let misses = Self.misses(Self.drive(.withTheLaterVelocity, interval: 0.1, offset: Self.wanderAndExcursion))
        #expect(Self.largest(misses, in: 20..<90) <= 1.5 && Self.largest(misses, in: 90..<131) <= 3.5)
    }

    @Test func nothingIsToldBeforeTheReckoningHasRunAWhileNorWithoutACourse() {
        var reader = ReceiverOffset()
        let drive = Self.drive(.withTheLaterVelocity, seconds: 40) { _, _ in (0, 0) }
        let told = drive.map { reader.read($0.fix, movingSpeed: 2) != nil }
        #expect(told.firstIndex(of: true) == 20, "from 20 s: \(told.firstIndex(of: true) ?? -1)")
        // A moving fix without a course: nothing to reckon with; the reading starts again.
        let blind = Track.fix(41, speed: 28, course: nil)
        #expect(reader.read(blind, movingSpeed: 2) == nil)
        #expect(reader.read(Track.fix(42, speed: 28, course: 20), movingSpeed: 2) == nil, "started again")
    }

    @Test func aShortGapIsBridgedAndALongOneStartsAgain() {
        let drive = Self.drive(.withTheLaterVelocity, seconds: 120, offset: Self.wanderAndExcursion)
        let seconds = { (fix: Location) in Track.start.seconds(to: fix.time) }
        // 8 s without a fix in the curve (fixes the gate rejected): read on after it no worse
        // than without the gap, give or take 0.5 m (bridged with the plain mean of the two
        // velocities, 5.9 m worse).
        let whole = Dictionary(uniqueKeysWithValues: Self.misses(drive).map { ($0.second, $0.miss) })
        let bridged = Self.misses(drive.filter { seconds($0.fix) < 80 || seconds($0.fix) >= 88 }).filter { $0.second >= 88 }
        #expect(bridged.count == 33 && bridged.allSatisfy { $0.miss - whole[$0.second]! <= 0.5 }, "\(bridged.map { ($0.second, $0.miss - whole[$0.second]!) })")
        // 20 s without one (a tunnel): the reckoning starts again, and tells nothing for 20 s.
        let told = Self.misses(drive.filter { seconds($0.fix) < 70 || seconds($0.fix) >= 90 }).map(\.second)
        #expect(told.first == 20 && !told.contains { $0 >= 70 && $0 < 110 } && told.contains(110), "\(told)")
    }

    @Test func aGapACornerWasTurnedInStartsAgain() {
        // At 10 m/s: north-east, a right-hand corner of 90° from second 60 to 63, then east. The
        // fixes stand on the road; the gate rejected those from 59 to 62.
        func course(_ t: Double) -> Double { 20 + 90 * min(1, max(0, (t - 60) / 3)) }
        var (east, north) = (0.0, 0.0)
        var drive: [Location] = []
        for second in 0...100 {
            let t = Double(second), c = course(t) * .pi / 180
            east += t > 0 ? 10 * sin(c) : 0
            north += t > 0 ? 10 * cos(c) : 0
            if !(59...62).contains(second) { drive.append(Track.fix(t, east: east, north: north, speed: 10, course: course(t))) }
        }
        var reader = ReceiverOffset()
        let told = drive.filter { reader.read($0, movingSpeed: 2) != nil }.map { Track.start.seconds(to: $0.time) }
        // 5 s in which the course turned 90°: not one steady turn, so where the corner was is not
        // known, and the reckoning starts again at second 63 (20 s of it before a word).
        #expect(told.first == 20 && told.contains(58) && !told.contains { $0 > 58 && $0 < 83 } && told.contains(83), "\(told)")
    }

    @Test func aVelocityThatDoesNotDescribeTheFixesTellsNothing() {
        // The fixes go north at 10 m/s while the receiver says east: within a minute the fixes
        // stray hundreds of metres from the path it reckons, and nothing is told.
        var reader = ReceiverOffset()
        let told = (0...120).map { reader.read(Track.fix(Double($0), north: 10 * Double($0), speed: 10, course: 90), movingSpeed: 2) != nil }
        #expect(!told.suffix(60).contains(true), "\(told)")
    }

    @Test func theRoomOnTheFixsFarSideFromTheRoadShrinksByItsOffset() {
        // Heading north; the fix 6 m east of the road (to its right): a segment passing with the
        // fix on its left runs east of it, 6 m farther from the road.
        let rooms = ReceiverOffset.rooms(left: 10, right: 10, offset: (x: 6, y: 0), course: 0, limit: 11, least: 3)
        #expect(abs(rooms.left - 5) < 1e-9 && rooms.right == 10)
        // Heading east, the fix 4 m north (to its left): the other side.
        let north = ReceiverOffset.rooms(left: 7, right: 10, offset: (x: 0, y: 4), course: 90, limit: 11, least: 3)
        #expect(north.left == 7 && abs(north.right - 7) < 1e-9)
        // Never below the least, never above what the side had.
        #expect(ReceiverOffset.rooms(left: 10, right: 10, offset: (x: 20, y: 0), course: 0, limit: 11, least: 3).left == 3)
        #expect(ReceiverOffset.rooms(left: 6, right: 10, offset: (x: 1, y: 0), course: 0, limit: 11, least: 3).left == 6)
    }
}

/// The deviation trigger with the offsets read: a track that stays near the road where the
/// receiver's fixes stand off it.
@Suite struct ReceiverOffsetTrackTests {
    @Test(arguments: [ReceiverOffsetTests.Motion.withTheLaterVelocity, .withTheMeanVelocity])
    func whereTheFixesStandInsideACurveTheTrackStaysNearTheRoad(motion: ReceiverOffsetTests.Motion) {
        // A highway's curve (3°/s at 28 m/s) whose fixes stand 8 m inside the road for 25 s.
        // Passing them on the inside by `turnShare` of the tolerance, as the trigger may where
        // nothing tells it the fixes stand off the road, the track cut the road by 15.0 m; with
        // the offsets read, 11.7 m.
        let drive = ReceiverOffsetTests.drive(motion, offset: ReceiverOffsetTests.wanderAndExcursion)
        var triggers = MotionTriggers(configuration: FilterConfiguration())
        let kept = drive.flatMap { triggers.process($0.fix) } + triggers.finish()
        let road = drive.map { fix, offset in
            TrackFidelity.PathPoint(time: fix.time, latitude: fix.latitude - offset.y / 111_195.08,
                                           longitude: fix.longitude - offset.x / (111_195.08 * 0.6087614290087207))
        }
        let fidelity = TrackFidelity(kept: kept.map(\.location), path: road)
        #expect(fidelity.maxDeviation <= 12, "\(fidelity.maxDeviation) m from the road at \(fidelity.worstTime?.iso8601 ?? "-"), \(kept.count) points")
        let (beyond, _) = SimplificationFidelityTests.compliance(drive.map(\.fix), track: kept.map(\.location), tolerance: 10)
        #expect(beyond == 0, "every fix within the tolerance")
    }

    @Test func whereTheOffsetIsReadABendsInsideGetsMoreRoomWithoutATrackerRule() {
        // The same curve, its fixes on the road but for the receiver's slow wander. Read to stand
        // on the road, the fixes on the bend's inside need no blanket margin for a cut the
        // receiver made: a segment passes them by up to `readTurnShare` of the tolerance (8 m),
        // and the curve takes fewer points. Under a tracker rule the trigger keeps `turnShare`.
        let drive = ReceiverOffsetTests.drive(.withTheLaterVelocity, seconds: 150) { t, _ in (1.5 * sin(t / 7), 1.2 * cos(t / 5)) }
        func inside(_ filtering: TrackerFiltering) -> (points: Int, farthest: Double) {
            var configuration = FilterConfiguration()
            configuration.trackerFiltering = filtering
            var triggers = MotionTriggers(configuration: configuration)
            let kept = (drive.flatMap { triggers.process($0.fix) } + triggers.finish()).map(\.location)
            let curve = drive.map(\.fix).filter { (60.0..<100).contains(Track.start.seconds(to: $0.time)) }
            return (kept.count, SimplificationFidelityTests.compliance(curve, track: kept, tolerance: .infinity).farthest)
        }
        let (read, rule) = (inside(.none), inside(.distanceBased))
        print("curve: \(read.points) points, farthest fix \(read.farthest) m; under a rule \(rule.points), \(rule.farthest) m")
        #expect(read.farthest > 7.2 && read.farthest <= 8 + 1e-6, "\(read)")
        #expect(rule.farthest <= 7 + 1e-6, "\(rule)")
        #expect(read.points < rule.points, "\(read.points) points against \(rule.points)")
    }
}
