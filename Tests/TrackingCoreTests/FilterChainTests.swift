import TestSupport
import Testing
import TrackingCore

@Suite struct FilterChainTests {
    @Test func countsEveryDecision() {
        var chain = FilterChain(configuration: FilterConfiguration())
        let fixes = [
            Track.fix(0), Track.fix(0), Track.fix(1, east: 10, accuracy: 99), Track.fix(2, east: 20),
            Track.fix(3, east: 9000), Track.fix(70, east: 700),
        ]
        let kept = fixes.flatMap { chain.process($0, clock: Track.synced).kept }
        #expect(kept.map(\.trigger) == [.first, .heartbeat])
        #expect(chain.counters.fixesIn == 6)
        #expect(chain.counters.rejected == [.stale: 1, .accuracy: 1, .outlier: 1])
        #expect(chain.counters.kept == [.first: 1, .heartbeat: 1])
        #expect(chain.counters.summary == "in=6 kept=2 (first=1 heartbeat=1) rejected=3 (accuracy=1 stale=1 outlier=1)")
    }

    @Test func recalledFixesCountAsOutliersAndHeldOnesReachTheTrackAtTheEnd() {
        var chain = FilterChain(configuration: FilterConfiguration())
        // East at 10 m/s; seconds 10-12 are 13 m north and second 13 is back: an excursion.
        let drive = (0...13).map { Track.fix(Double($0), east: Double($0) * 10, north: (10...12).contains($0) ? 13 : 0) }
        let decisions = drive.map { chain.process($0, clock: Track.synced) }
        #expect(decisions[13].recalled == Array(drive[10...12]))
        #expect(decisions[13].verdict.passes && decisions[13].verdict.released.isEmpty)
        #expect(chain.counters.rejected == [.outlier: 3])
        // Second 14 is 12 m north and the stream ends there: held, then passed at the end, and
        // the track reaches it.
        let last = Track.fix(14, east: 140, north: 12)
        #expect(!chain.process(last, clock: Track.synced).verdict.passes)
        #expect(chain.heldFixes > 0)
        #expect(chain.finish().last == KeptLocation(location: last, trigger: .final))
    }

    @Test func keptTimesIncreaseAndPassTheGateOnRandomSequences() {
        for seed in 1...20 {
            var generator = SplitMix(seed: UInt64(seed))
            func uniform(_ range: ClosedRange<Double>) -> Double {
                range.lowerBound + Double(generator.next() % 1_000_001) / 1_000_000 * (range.upperBound - range.lowerBound)
            }
            var chain = FilterChain(configuration: FilterConfiguration())
            var gate = QualityGate(configuration: FilterConfiguration())
            var second = 0.0, east = 0.0, north = 0.0
            var kept: [KeptLocation] = []
            for _ in 0..<2000 {
                second += uniform(-1...3).rounded()
                east += uniform(-40...40)
                north += uniform(-40...40)
                let speed: Double? = generator.next() % 5 == 0 ? nil : uniform(0...30)
                let fix = Track.fix(second, east: generator.next() % 50 == 0 ? east * 100 : east, north: north,
                                    speed: speed, course: uniform(0...359), accuracy: uniform(1...80),
                                    mode: generator.next() % 10 == 0 ? .twoD : .threeD)
                kept += chain.process(fix, clock: Track.synced).kept
            }
            for (a, b) in zip(kept, kept.dropFirst()) { #expect(a.location.time < b.location.time, "seed \(seed)") }
            for item in kept {
                #expect((item.location.horizontalAccuracy ?? 0) <= 50, "seed \(seed)")
            }
            // Re-running the kept fixes through a fresh gate: each passes except for jumps the
            // original chain accepted after confirmation.
            var rejections = 0
            for item in kept where gate.check(item.location, clock: Track.synced) != nil { rejections += 1 }
            #expect(chain.counters.keptTotal == kept.count)
            #expect(rejections <= chain.counters.rejected[.outlier, default: 0])
        }
    }
}
