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

    /// East at 12 m/s from the first point; a heartbeat falls due at 60 s, and at 61 s the road
    /// bends left, 40 degrees over 8 s, then goes on straight to a stop at 160 s. Under
    /// DistanceBased the heartbeat's point (64 s, in the bend) stands in for the bend's, which is
    /// too near it for the rule. Judged from the bend's own point the triggers then saw a
    /// straight road, and the track from the heartbeat's point to the next left the bend's fixes
    /// 9.7 m inside it, where its inside has 7 m (`MotionTriggers.turnShare`); judged from the
    /// point the tracker has, they wish another, and the track keeps to the bend's share.
    @Test func underARuleTheRoadAfterThePointTheTrackerHasIsJudgedFromIt() {
        let fixes = Track.driven(through: 200, speed: { $0 >= 160 ? 0 : 12 },
                                 heading: { $0 < 61 ? 90 : $0 < 69 ? 90 - 5 * Double($0 - 60) : 50 })
        var configuration = FilterConfiguration()
        configuration.trackerFiltering = .distanceBased
        var chain = FilterChain(configuration: configuration)
        var kept: [KeptLocation] = []
        for fix in fixes { kept += chain.process(fix, clock: Track.synced).kept }
        kept += chain.finish()
        let track = kept.map(\.location)
        for (a, b) in zip(track, track.dropFirst()) { #expect(TrackerFiltering.distanceBased.stores(b, after: a)) }
        let seconds = kept.map { Track.start.seconds(to: $0.location.time) }
        #expect(kept.contains { $0.trigger == .heartbeat && (60...66).contains(Track.start.seconds(to: $0.location.time)) }, "\(seconds)")
        let moving = fixes.filter { ($0.speed ?? 0) > 1 }
        let (_, farthest) = SimplificationFidelityTests.compliance(moving, track: track, tolerance: 10)
        #expect(farthest <= MotionTriggers.turnShare * configuration.maxDeviation, "the bend within its share: \(farthest) m; kept \(seconds)")
    }

    /// The tracker's mode changes while the vehicle drives (learned again every hour, or on a
    /// reload), with corners, stops and heartbeats owed: from each change on, every point kept is
    /// one the tracker in its new mode stores after the point before it, so nothing sent is lost.
    @Test(arguments: ["drive-seed11", "route-random202-5hz"])
    func aModeChangedWhileDrivingIsObeyedFromThePointBeforeOn(drive: String) async throws {
        let fixes = try FilterFidelityTests.locations("\(drive).locations.jsonl")
        let modes: [TrackerFiltering] = [.none, .timeBased, .distanceBased, .accuracyBased, .timeBased, .distanceBased, .none]
        let clock = ClockReading(now: FixTime(iso8601: "2026-11-30T00:00:00Z")!, synchronized: true)
        let kept = try await offThePool { () -> [(mode: TrackerFiltering, location: Location)] in
            var chain = FilterChain(configuration: FilterConfiguration())
            var kept: [(mode: TrackerFiltering, location: Location)] = []
            for (index, fix) in fixes.enumerated() {
                let mode = modes[index * modes.count / fixes.count]
                if chain.configuration.trackerFiltering != mode { chain.configuration.trackerFiltering = mode }
                kept += chain.process(fix, clock: clock).kept.map { (mode, $0.location) }
            }
            return kept + chain.finish().map { (modes[modes.count - 1], $0.location) }
        }
        for mode in Set(modes) { #expect(kept.contains { $0.mode == mode }, "points kept under \(mode)") }
        for (before, point) in zip(kept, kept.dropFirst()) {
            #expect(before.location.time < point.location.time)
            let gap = "\(Geodesy.distance(before.location, point.location)) m and \(before.location.time.seconds(to: point.location.time)) s"
            #expect(point.mode.stores(point.location, after: before.location),
                    "\(point.mode) would drop \(point.location.time.iso8601), \(gap) after \(before.location.time.iso8601)")
        }
    }
}
