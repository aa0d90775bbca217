import TestSupport
import Testing
import TrackingCore

/// The reference for what a tracker's filtering allows (`BestStoredTrack`) against brute force.
@Suite struct BestStoredTrackTests {
    /// Fixes 4 s apart on a vehicle-like walk, and a true path beside them (the fixes a few
    /// metres off it, as a receiver's are).
    static func drive(_ random: inout SplitMix, count: Int) -> (fixes: [Location], path: [TrackFidelity.PathPoint]) {
        let walk = FewestPointsTests.walk(&random, count: count)
        var fixes: [Location] = []
        var path: [TrackFidelity.PathPoint] = []
        for (second, point) in walk.enumerated() {
            let accuracy = 5 + 20 * FewestPointsTests.uniform(&random)
            let (dx, dy) = ((FewestPointsTests.uniform(&random) - 0.5) * 8, (FewestPointsTests.uniform(&random) - 0.5) * 8)
            fixes.append(Track.fix(Double(second) * 4, east: point.x + dx, north: point.y + dy, accuracy: accuracy))
            let truth = Track.fix(Double(second) * 4, east: point.x, north: point.y)
            path.append(.init(time: truth.time, latitude: truth.latitude, longitude: truth.longitude))
        }
        return (fixes, path)
    }

    /// Every stored track from the first fix to the last, each checked against the rule.
    static func bruteForce(_ fixes: [Location], path: [TrackFidelity.PathPoint], filtering: TrackerFiltering) -> Double {
        var best = Double.infinity
        let inner = fixes.count - 2
        for mask in 0..<(1 << inner) {
            let track = [fixes[0]] + (0..<inner).filter { mask & (1 << $0) != 0 }.map { fixes[$0 + 1] } + [fixes[fixes.count - 1]]
            guard zip(track, track.dropFirst()).allSatisfy({ filtering.stores($1, after: $0) }) else { continue }
            best = min(best, BestStoredTrack.deviation(of: track, path: path))
        }
        return best
    }

    @Test(arguments: [TrackerFiltering.distanceBased, .accuracyBased, .timeBased, .none])
    func isTheBestOfEveryTrackTheRuleStores(filtering: TrackerFiltering) {
        var random = SplitMix(seed: 404)
        var compared = 0
        for _ in 0..<60 {
            let (fixes, path) = Self.drive(&random, count: 12)
            let brute = Self.bruteForce(fixes, path: path, filtering: filtering)
            let best = BestStoredTrack.deviation(fixes, path: path, filtering: filtering)
            #expect(abs(best - brute) < 1e-9 || (best.isInfinite && brute.isInfinite), "\(best) against \(brute)")
            if brute.isFinite { compared += 1 }
        }
        #expect(compared >= 20, "most drives have a stored track to the end")
    }

    @Test func theRuleCostsWhatTheTrackCannotReach() {
        // East 100 m, then north 100 m, a fix every 10 m, exactly on the road. Without a rule the
        // corner is kept exactly; with both accuracies 60 m, no point may stand within 120 m of the
        // last, so the corner cannot be stored and the best track cuts it.
        let road = (0...10).map { (Double($0) * 10, 0.0) } + (1...10).map { (100.0, Double($0) * 10) }
        func fixes(accuracy: Double) -> [Location] { road.enumerated().map { Track.fix(Double($0.offset), east: $0.element.0, north: $0.element.1, accuracy: accuracy) } }
        let path = fixes(accuracy: 0).map { TrackFidelity.PathPoint(time: $0.time, latitude: $0.latitude, longitude: $0.longitude) }
        #expect(BestStoredTrack.deviation(fixes(accuracy: 5), path: path, filtering: .none) < 1e-6)
        #expect(BestStoredTrack.deviation(fixes(accuracy: 5), path: path, filtering: .accuracyBased) < 1e-6, "the corner is 100 m from the start")
        let cut = BestStoredTrack.deviation(fixes(accuracy: 60), path: path, filtering: .accuracyBased)
        #expect(cut > 10 && cut.isFinite, "\(cut)")
    }
}
