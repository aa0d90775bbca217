import Foundation
import Testing
@testable import TrackingCore

@Suite struct PhaseCountsTests {
    static let start = FixTime(iso8601: "2026-12-01T08:00:00Z")!
    static func at(_ seconds: Double) -> Location {
        Location(time: start.adding(seconds: seconds), mode: .threeD, latitude: 52.5, longitude: 13.4)!
    }

    /// A drive parked 0-9 s, in a corner 10-19 s, on a curve 20-29 s: the filter kept two points
    /// in the corner where the fewest keep one, and two on the curve as the fewest do.
    @Test func theCountsDifferOnlyWhereThePointsAre() {
        var phaseByTime: [FixTime: String] = [:]
        for second in 0..<30 { phaseByTime[Self.start.adding(seconds: Double(second))] = ["parked", "corner", "curve"][second / 10] }
        let counts = PhaseCounts(kept: [0, 12, 15, 22, 28].map(Self.at), fewest: [0, 13, 21, 29].map(Self.at), phaseByTime: phaseByTime)
        #expect(counts.counts.map(\.phase) == ["parked", "corner", "curve"])
        #expect(counts.counts.map(\.kept) == [1, 2, 2])
        #expect(counts.counts.map(\.fewest) == [1, 1, 2])
        #expect(counts.differences == "where the points differ from the fewest's: corner 2 against 1")
        let same = PhaseCounts(kept: [0, 13].map(Self.at), fewest: [0, 12].map(Self.at), phaseByTime: phaseByTime)
        #expect(same.differences == "kept as many as the fewest in every phase")
        // A point whose time the truth does not know (the receiver's time between its epochs).
        let unknown = PhaseCounts(kept: [Self.at(40)], fewest: [], phaseByTime: phaseByTime)
        #expect(unknown.differences == "where the points differ from the fewest's: - 1 against 0")
    }
}
