import TestSupport
import Testing
@testable import TrackingCore

/// The choice's pairs measured only as far as they could be weighed: whatever the distances, the
/// choice made of them must be the one made of every pair measured whole.
@Suite struct SpacedPathMeasuringTests {
    /// Candidates `count`, the rule allowing a pair when the second is at least `spacing` after
    /// the first (as TimeBased: the pairs allowed into each candidate are the first ones), and
    /// into the newest fix any; each pair's figures drawn at random, some near the tolerance; in
    /// half the windows a place owed, met by a few candidates drawn at random.
    struct Window {
        var count: Int
        var spacing: Int
        var worst: [[Double]]
        var over: [[Double]]
        var keepsEnd: [Bool]
        var meets: [Bool] = []

        init(_ random: inout SplitMix) {
            count = 2 + Int(random.uniform() * 40)
            spacing = 1 + Int(random.uniform() * 12)
            let scale = random.uniform() < 0.5 ? 15.0 : 100.0
            var worst = [[Double]](repeating: [Double](repeating: 0, count: count), count: count)
            var over = worst
            for a in 0..<count {
                for b in (a + 1)..<count {
                    worst[a][b] = random.uniform() * scale * Double(b - a) / Double(count)
                    over[a][b] = worst[a][b] - 10 * (random.uniform() < 0.3 ? MotionTriggers.turnShare : 1)
                }
            }
            self.worst = worst
            self.over = over
            keepsEnd = (0..<count).map { _ in random.uniform() < 0.5 }
            if random.uniform() < 0.5 { meets = (0..<count).map { _ in random.uniform() < 0.15 } }
        }

        var asked: [Int] { (0..<count).map { b in max(0, b - spacing + 1) } }
        func allowed(_ a: Int, _ b: Int) -> Bool { b == count - 1 || b - a >= spacing }

        /// The pairs measured, and how many were asked for; `whole`, each measured whatever it
        /// was asked to keep within, as every pair was before the bound.
        func pairs(whole: Bool, mostPoints: Int?) -> (SpacedPath.Pairs, asked: Int) {
            var asked = 0
            let pairs = SpacedPath.Pairs(count: count, asked: self.asked, allowed: allowed, tolerance: 10, mostPoints: mostPoints,
                                         meets: meets) { a, b, within in
                asked += 1
                return worst[a][b] > within && !whole ? nil : (worst[a][b], over[a][b], keepsEnd[a])
            }
            return (pairs, asked)
        }
    }

    /// Under TimeBased (no most) and under a distance rule (at most 1 to 4 points).
    @Test func theBoundLeavesTheChoiceAsEveryPairMeasuredMakesIt() {
        var random = SplitMix(seed: 2026_12_06)
        var passedOver = 0
        for round in 0..<3000 {
            let window = Window(&random)
            let most = round % 3 == 0 ? nil : 1 + Int(random.uniform() * 4)
            let (whole, _) = window.pairs(whole: true, mostPoints: most)
            let (bounded, _) = window.pairs(whole: false, mostPoints: most)
            let alike = most == nil ? SpacedPath.timeBasedExcessAlike : SpacedPath.Choice.sameExcess
            let expected = SpacedPath.choice(whole, mostPoints: most, tolerance: 10, excessAlike: alike)
            let found = SpacedPath.choice(bounded, mostPoints: most, tolerance: 10, excessAlike: alike)
            #expect(found?.nodes == expected?.nodes && found?.endKept == expected?.endKept, "round \(round), most \(String(describing: most))")
            #expect(found?.figures.excess == expected?.figures.excess && found?.figures.worst == expected?.figures.worst
                && found?.figures.spread == expected?.figures.spread, "round \(round)")
            passedOver += bounded.measured.count < whole.measured.count ? 1 : 0
        }
        // The bound is what is tested: most windows have pairs beyond it.
        #expect(passedOver > 1500, "\(passedOver) of 3000 windows with pairs passed over")
    }

    /// Measured whole, every pair the rule allows from a candidate reached is measured, once,
    /// and the pairs come in order by their second candidate, then their first, those measured
    /// first for the bound among them.
    @Test func measuredWholeEveryPairReachedIsMeasuredOnceAndInOrder() {
        var random = SplitMix(seed: 6)
        for _ in 0..<300 {
            let window = Window(&random)
            let (pairs, asked) = window.pairs(whole: true, mostPoints: nil)
            let keys = pairs.measured.map { [$0.a, $0.b] }
            #expect(Set(keys).count == keys.count && asked == keys.count)
            var expected: [[Int]] = []
            var reached = [true] + [Bool](repeating: false, count: window.count - 1)
            for b in 1..<window.count {
                for a in 0..<b where reached[a] && window.allowed(a, b) && (b == window.count - 1 || a < window.asked[b]) {
                    expected.append([a, b])
                    reached[b] = true
                }
            }
            #expect(pairs.measured.map { [$0.a, $0.b] } == expected, "the weighing takes them as they come, unsorted")
        }
    }

    /// Only a track that meets the place owed bounds the measuring: the nearest track (through
    /// 1, 12 m from its fixes) meets nothing, and bounding by it left the track through the
    /// place (2, 20 m) unmeasured, so the choice found none. Candidates 0 (the origin) to 3 (the
    /// newest fix, kept).
    @Test func onlyATrackThatMeetsThePlaceOwedBoundsTheMeasuring() throws {
        let worst: [[Int]: Double] = [[0, 1]: 12, [1, 3]: 12, [0, 2]: 20, [2, 3]: 20, [0, 3]: 50, [1, 2]: 50]
        let pairs = SpacedPath.Pairs(count: 4, asked: [0, 1, 2, 3], allowed: { _, _ in true }, tolerance: 10, mostPoints: nil,
                                     meets: [false, false, true, false]) { a, b, within in
            let distance = worst[[a, b]]!
            return distance > within ? nil : (distance, distance - 10, true)
        }
        let choice = try #require(SpacedPath.choice(pairs, tolerance: 10))
        #expect(choice.nodes == [2] && choice.figures.worst == 20, "\(choice.nodes)")
    }
}
