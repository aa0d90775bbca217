@testable import Daemon
import Testing
import TrackingCore

@Suite struct RejectionEpisodesTests {
    let start = FixTime(iso8601: "2026-11-30T08:00:10Z")!

    @Test func fixesRecalledAsAnExcursionAreOneDebugLineWithTheirSpan() {
        #expect(RejectionEpisodes.recalled([]) == nil)
        let fixes = (0..<3).map { Location(time: start.adding(seconds: Double($0)), mode: .threeD, latitude: 52.5, longitude: 13.4)! }
        let line = RejectionEpisodes.recalled(fixes)
        #expect(line?.0 == .debug)
        #expect(line?.1.hasPrefix("rejected 3 fixes from 2026-11-30T08:00:10.000Z to 2026-11-30T08:00:12.000Z (outlier)") == true, "\(line?.1 ?? "")")
    }

    @Test func anOutlierIsExplainedAsAJumpOrAnExcursionAndWhenItIsFollowed() {
        var episodes = RejectionEpisodes()
        let fix = Location(time: start, mode: .threeD, latitude: 52.5, longitude: 13.4)!
        let line = episodes.record(.outlier, fix, configuration: FilterConfiguration(), clock: ClockReading(now: start, synchronized: false))
        #expect(line?.1 == "rejecting fixes (outlier): fix at 2026-11-30T08:00:10.000Z is off where the last accepted fix and the "
            + "receiver's velocity put the vehicle (a jump faster than max-speed 100 m/s, or more than 15 m aside: multipath); "
            + "3 agreeing fixes beyond max-speed and more than 100 m aside, or 8 s aside, are followed")
    }

    @Test func aRunOfRejectionsIsOneLineWhenItStartsAndOneWhenItEnds() {
        var episodes = RejectionEpisodes()
        let configuration = FilterConfiguration()
        let clock = ClockReading(now: start, synchronized: false)
        let fix = Location(time: start, mode: .threeD, latitude: 52.5, longitude: 13.4, horizontalAccuracy: 80)!
        let lines = [RejectionReason.accuracy, .accuracy, .accuracy, nil].map { episodes.record($0, fix, configuration: configuration, clock: clock) }
        #expect(lines.map { $0?.1 } == ["rejecting fixes (accuracy): accuracy 80 m worse than max-accuracy 50 m", nil, nil,
                                        "fixes accepted again after 3 rejected (accuracy)"])
    }
}
