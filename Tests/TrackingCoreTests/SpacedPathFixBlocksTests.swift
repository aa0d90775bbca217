import Foundation
import TestSupport
import Testing
@testable import TrackingCore

/// The choice's blocks of fixes pass over the blocks that cannot matter: what they find must be
/// what measuring every fix finds, exactly, or the choice would keep other points.
@Suite struct SpacedPathFixBlocksTests {
    /// Measuring every fix of `range`, as the choice did before it had blocks.
    /// With `far`, where fixes stand off the road: a segment on a fix's far side from the road
    /// (the way its offset points) has no more than that side's room.
    static func everyFix(_ points: [(x: Double, y: Double)], _ turns: [TurnWatch.Turn], _ afterGap: [Bool], _ range: Range<Int>,
                         _ a: (x: Double, y: Double), _ b: (x: Double, y: Double), tolerance: Double,
                         far: [SpacedPath.FarSide?] = []) -> (worst: Double, over: Double) {
        var worst = 0.0, over = -Double.infinity
        for k in range {
            let distance = LocalPlane.squaredDistance(from: points[k], toSegment: a, b).squareRoot()
            // Where the fix's offset is read, a bend's inside gets `readTurnShare`.
            let read = !far.isEmpty && far[k] != nil
            var room = afterGap[k] ? tolerance * MotionTriggers.gapShare
                : SpacedPath.insideOfABend(points[k], turns[k], a, b) ? tolerance * (read ? MotionTriggers.readTurnShare : MotionTriggers.turnShare) : tolerance
            if !afterGap[k], !far.isEmpty, let side = far[k] {
                // The segment's line on the side the offset points to: the normal from the fix
                // towards the line, against the offset (a line through the fix is on neither).
                let d = (x: b.x - a.x, y: b.y - a.y), s = SpacedPath.side(of: points[k], from: a, to: b)
                let towards = s > 0 ? (x: d.y, y: -d.x) : (x: -d.y, y: d.x)
                if s != 0, towards.x * side.offset.x + towards.y * side.offset.y > 0 { room = min(room, side.room) }
            }
            worst = max(worst, distance)
            over = max(over, distance - room)
        }
        return (worst, over)
    }

    /// A road of straights and bends of every sharpness with a receiver's wandering error, stops
    /// where the fixes stand on one place, turns read in runs either way.
    static func road(_ random: inout SplitMix, count: Int) -> (points: [(x: Double, y: Double)], turns: [TurnWatch.Turn]) {
        var (x, y, course, drift) = (0.0, 0.0, random.uniform() * 360, (x: 0.0, y: 0.0))
        var points: [(x: Double, y: Double)] = [], turns: [TurnWatch.Turn] = []
        var turnRate = 0.0, runLeft = 0
        for _ in 0..<count {
            if runLeft == 0 {
                runLeft = 1 + Int(random.uniform() * 30)
                turnRate = random.uniform() < 0.5 ? 0 : (random.uniform() - 0.5) * 60
            }
            runLeft -= 1
            let step = random.uniform() < 0.1 ? 0 : 1 + random.uniform() * 12
            course += turnRate
            x += step * sin(course * .pi / 180)
            y += step * cos(course * .pi / 180)
            drift = (0.9 * drift.x + random.gaussian(), 0.9 * drift.y + random.gaussian())
            points.append(step == 0 && !points.isEmpty ? points[points.count - 1] : (x + drift.x * 3, y + drift.y * 3))
            turns.append(turnRate > 5 ? .right : turnRate < -5 ? .left : .straight)
        }
        return (points, turns)
    }

    @Test func theFarthestFixAndTheMostBeyondItsRoomAreThoseOfEveryFix() {
        var random = SplitMix(seed: 2026_12_04)
        var long = 0, beyond = 0
        for _ in 0..<3000 {
            let count = 2 + Int(random.uniform() * 400)
            let (points, turns) = Self.road(&random, count: count)
            let tolerance = 5 + random.uniform() * 15
            // Now and then the first fix after a gap, with the least room of all.
            let gaps = points.map { _ in random.uniform() < 0.03 }
            // Half the roads with fixes known to stand off the road, each with its far side's room.
            let offsets = random.uniform() < 0.5
            let far: [SpacedPath.FarSide?] = points.map { _ in
                offsets && random.uniform() < 0.6
                    ? SpacedPath.FarSide(offset: (random.gaussian() * 4, random.gaussian() * 4), room: tolerance * (0.3 + 0.8 * random.uniform())) : nil
            }
            let blocks = SpacedPath.FixBlocks(points: points, turns: turns, afterGap: gaps, tolerance: tolerance, farSides: offsets ? far : [])
            let lower = Int(random.uniform() * Double(count - 1))
            let upper = lower + 1 + Int(random.uniform() * Double(count - lower - 1))
            // A segment between two of the fixes, as the choice's are, or across the road.
            let ends = random.uniform() < 0.8
                ? (points[max(0, lower - 1)], points[upper])
                : ((x: random.gaussian() * 200, y: random.gaussian() * 200), (x: random.gaussian() * 200, y: random.gaussian() * 200))
            let range = lower..<upper
            let found = blocks.reach(range, from: ends.0, to: ends.1)
            let expected = Self.everyFix(points, turns, gaps, range, ends.0, ends.1, tolerance: tolerance, far: offsets ? far : [])
            #expect(found?.worst == expected.worst, "\(count) fixes, \(range)")
            #expect(found?.over == expected.over, "\(count) fixes, \(range)")
            // Asked to give up beyond a distance: nil exactly when a fix lies beyond it, else the same.
            let within = expected.worst * (0.5 + random.uniform())
            let bounded = blocks.reach(range, from: ends.0, to: ends.1, within: within)
            #expect((bounded == nil) == (expected.worst > within), "\(count) fixes, \(range), within \(within) of \(expected.worst)")
            if let bounded { #expect(bounded.worst == expected.worst && bounded.over == expected.over, "\(count) fixes, \(range), within \(within)") }
            beyond += expected.worst > within ? 1 : 0
            if range.count > 3 * SpacedPath.FixBlocks.size { long += 1 }
        }
        // A third of the ranges or more span more than three blocks, so the blocks are what is tested;
        // about half of them lie beyond the distance they were asked to keep within.
        #expect(long > 1000)
        #expect(beyond > 1000 && beyond < 2000, "\(beyond) of 3000 beyond")
    }

    /// Blocks whose fixes lie on their bound, between blocks standing nearly as far off the road:
    /// a bound is the least above what its farthest fix can be, and a block next to it nearly as
    /// far must not let it be passed over. Rings 20 m across on the road (their farthest fixes
    /// off the chord on both sides), and bulges whose middle fixes stand 9.75 m off their chord
    /// on one side, the chord on the road (a bound from the chord's ends alone would pass them
    /// over for the blocks beside them, 9.7 m off).
    @Test func aFixOnTheBlocksBoundIsNeverPassedOver() {
        let size = SpacedPath.FixBlocks.size
        let ring = { (rotation: Double, k: Int) -> (x: Double, y: Double) in
            let angle = (rotation + Double(k) * 360 / Double(size)) * .pi / 180
            return (10 * cos(angle), 10 * sin(angle))
        }
        let bulge = { (_: Double, k: Int) -> (x: Double, y: Double) in
            (Double(k) * 4, 10 * sin(Double(k) * .pi / Double(size - 1)))
        }
        for (shape, beside, rotations) in [(ring, 9.995, Array(stride(from: 0.0, to: 360, by: 7.5))), (bulge, 9.7, [0])] {
            for rotation in rotations {
                var points: [(x: Double, y: Double)] = []
                for block in 0..<6 {
                    for k in 0..<size {
                        let p = shape(rotation, k)
                        points.append(block % 2 == 0 ? (Double(block) * 50 + p.x, p.y) : (Double(block) * 50 + Double(k), beside))
                    }
                }
                // Straight: a bend's smaller room would have every block measured anyway.
                let turns = [TurnWatch.Turn](repeating: .straight, count: points.count)
                let gaps = [Bool](repeating: false, count: points.count)
                let blocks = SpacedPath.FixBlocks(points: points, turns: turns, afterGap: gaps, tolerance: 10)
                for offset in [-0.004, 0, 0.004] {
                    let (a, b) = ((x: -30.0, y: offset), (x: 300.0, y: offset))
                    let found = blocks.reach(1..<(points.count - 1), from: a, to: b)
                    let expected = Self.everyFix(points, turns, gaps, 1..<(points.count - 1), a, b, tolerance: 10)
                    #expect(found?.worst == expected.worst && found?.over == expected.over, "rotation \(rotation), offset \(offset), beside \(beside)")
                }
            }
        }
    }
}
