import GPSDReader
import Testing
import TrackingCore

/// A run of fix times far off the receiver's timeline is skipped as a glitch; one that holds
/// becomes the timeline. Either way tracking goes on.
@Suite struct FixTimelineTests {
    let t0 = ContinuousClock.now
    let base = FixTime(iso8601: "2026-11-01T08:00:00Z")!

    func time(_ seconds: Double) -> FixTime { base.adding(seconds: seconds) }
    func at(_ seconds: Double) -> ContinuousClock.Instant { t0.advanced(by: .milliseconds(Int64(seconds * 1000))) }
    func tpv(_ seconds: Double) -> TPVReport {
        TPVReport(mode: 3, time: time(seconds), latitude: 52.5, longitude: 13.4, device: "/dev/ttyACM0")
    }

    /// Feeds one report a second of monotonic time; returns the fix times emitted.
    func feed(_ assembler: inout EpochAssembler, _ times: [(fix: Double, at: Double)]) -> [Double] {
        var out: [Double] = []
        for (fix, second) in times {
            out += assembler.add(tpv(fix), at: at(second)).map { base.seconds(to: $0.time) }
        }
        if let last = assembler.flush() { out.append(base.seconds(to: last.time)) }
        return out
    }

    @Test func tenEpochsDatedTomorrowAreSkippedAndTrackingResumes() {
        var assembler = EpochAssembler()
        let day = 86_400.0
        var times: [(fix: Double, at: Double)] = []
        for n in 0..<60 { times.append((fix: ((20..<30).contains(n) ? day : 0) + Double(n), at: Double(n))) }
        let emitted = feed(&assembler, times)
        let expected: [Double] = (0..<60).filter { !(20..<30).contains($0) }.map(Double.init)
        #expect(emitted == expected)
        #expect(assembler.counters.timeGlitches == 10)
        #expect(assembler.counters.backwardsTime == 0)
        #expect(assembler.takeNotices() == [
            .glitchStarted(time: time(day + 20), expectedNear: time(19)),
            .glitchEnded(skipped: 10),
        ])
    }

    @Test func aTimeThatHoldsBecomesTheTimelineWhenTheFirstWasWrong() {
        // Started while the receiver reported tomorrow; then it corrects itself for good.
        var assembler = EpochAssembler(timeline: FixTimeline(maxJump: .seconds(300), confirmation: .seconds(30)))
        let day = 86_400.0
        var times: [(fix: Double, at: Double)] = []
        for n in 0..<100 { times.append((fix: (n < 5 ? day : 0) + Double(n), at: Double(n))) }
        let emitted = feed(&assembler, times)
        let rebasedAt = 5.0 + 30.0
        let expected: [Double] = (0..<5).map { day + Double($0) } + (Int(rebasedAt)..<100).map(Double.init)
        #expect(emitted == expected)
        #expect(assembler.counters.timelineRebases == 1)
        #expect(assembler.counters.timeGlitches == Int(rebasedAt) - 5)
        #expect(assembler.takeNotices() == [
            .glitchStarted(time: time(5), expectedNear: time(day + 4)),
            .rebased(from: time(day + 4), to: time(rebasedAt)),
        ])
    }

    @Test func aReplayFasterThanRealTimeAndAGapWithoutFixesStayOnTheTimeline() {
        // A replay at 50x, then a tunnel of 10 minutes without fix (monotonic time passes too).
        var assembler = EpochAssembler()
        var times: [(fix: Double, at: Double)] = []
        for n in 0..<200 { times.append((Double(n), Double(n) / 50)) }
        for n in 800..<810 { times.append((Double(n), 4 + Double(n - 200))) }
        let emitted = feed(&assembler, times)
        #expect(emitted.count == 210)
        #expect(assembler.counters.timeGlitches == 0)
        #expect(assembler.counters.timelineRebases == 0)
    }

    @Test func aShortLivedOtherTimeNeverReplacesTheTimeline() {
        var timeline = FixTimeline(maxJump: .seconds(300), confirmation: .seconds(30))
        #expect(timeline.judge(time(0), at: at(0)) == .onTimeline)
        timeline.accept(time(0), at: at(0))
        // Ten epochs an hour ahead, one a second: still under the confirmation time.
        for n in 1...10 {
            #expect(timeline.judge(time(3600 + Double(n)), at: at(Double(n))) == .offTimeline(startsEpisode: n == 1))
        }
        #expect(timeline.episodeLength == 10)
        #expect(timeline.judge(time(11), at: at(11)) == .onTimeline)
        #expect(timeline.accept(time(11), at: at(11)) == 10)
        #expect(timeline.episodeLength == 0)
    }
}

@Suite struct FixTimelineReplayTests {
    @Test func aReplayOfAnotherDayIsFollowedOnceItHasShownHalfAMinuteOfItsTime() {
        // gpsd restarted on a log of another day, replayed at 100x.
        let t0 = ContinuousClock.now
        let day1 = FixTime(iso8601: "2021-05-01T10:00:00Z")!
        let day2 = FixTime(iso8601: "2026-11-02T08:00:00Z")!
        var timeline = FixTimeline()
        timeline.accept(day1, at: t0)
        var verdicts: [FixTimeline.Verdict] = []
        for n in 0..<40 {
            let at = t0.advanced(by: .milliseconds(2000 + Int64(n) * 10))
            let verdict = timeline.judge(day2.adding(seconds: Double(n)), at: at)
            if verdict == .onTimeline { timeline.accept(day2.adding(seconds: Double(n)), at: at) }
            verdicts.append(verdict)
        }
        #expect(verdicts.firstIndex { if case .rebased = $0 { true } else { false } } == 30)
        #expect(verdicts.dropFirst(31).allSatisfy { $0 == .onTimeline })
    }
}
