import Testing
import Uploader

/// The request rate under a shared quota, with a manual clock.
@Suite struct RequestRateTests {
    let t0 = ContinuousClock.now
    func at(_ seconds: Double) -> ContinuousClock.Instant { t0 + .milliseconds(Int64(seconds * 1000)) }

    @Test func startsAtItsCeilingAndCutsAQuarterThenHalves() {
        var rate = RequestRate(ceiling: 9.5)
        #expect(rate.current == 9.5, "a device alone drains at full speed")
        #expect(!rate.isLowered)
        #expect(rate.throttled(sent: at(0), at: at(0.1)) == .episodeBegins)
        #expect(abs(rate.current - 2.375) < 1e-9)
        #expect(rate.throttled(sent: at(1), at: at(1.1)) == .lowered)
        #expect(abs(rate.current - 1.1875) < 1e-9)
        #expect(rate.isLowered)
    }

    @Test func answersToRequestsUnderWayAtTheCutDoNotCutAgain() {
        var rate = RequestRate(ceiling: 8)
        rate.throttled(sent: at(0), at: at(1))
        // Four were in flight together; their answers come after the cut.
        #expect(rate.throttled(sent: at(0.2), at: at(1.05)) == .none)
        #expect(rate.throttled(sent: at(0.9), at: at(1.2)) == .none)
        #expect(rate.current == 2)
        #expect(rate.throttled(sent: at(1.5), at: at(1.6)) == .lowered, "sent after the cut: news")
        #expect(rate.current == 1)
    }

    @Test func risesWithAnsweredTimeAdditivelyAndInProportionTheFasterTheLongerQuiet() {
        var rate = RequestRate(ceiling: 10)
        rate.throttled(sent: at(0), at: at(0))
        #expect(rate.current == 2.5)
        rate.answered(at: at(5))
        // 5 s at 0.004 + 0.01 x (1 + 5/10) x 2.5 requests/s a second.
        #expect(abs(rate.current - (2.5 + 5 * (0.004 + 0.015 * 2.5))) < 1e-9)
        let before = rate.current
        rate.answered(at: at(15))
        #expect(abs(rate.current - (before + 10 * (0.004 + 0.025 * before))) < 1e-9, "15 s quiet: 2.5 shares")
        var idle = RequestRate(ceiling: 1000)
        idle.throttled(sent: at(0), at: at(0))
        idle.answered(at: at(1))
        let start = idle.current
        idle.answered(at: at(101))
        #expect(abs(idle.current - (start + 10 * (0.004 + 0.01 * (1 + 10.1) * start))) < 1e-6,
                "an idle stretch counts 10 s of rise at most: it is no evidence of room in the quota")
        for second in stride(from: 606.0, through: 2000, by: 1) { rate.answered(at: at(second)) }
        #expect(rate.current == 10, "never above the ceiling")
        #expect(!rate.isLowered)
    }

    @Test func aLoneDeviceComesBackWithinMinutesAndAFleetShareRisesSlowly() {
        var alone = RequestRate(ceiling: 9.5)
        alone.throttled(sent: at(0), at: at(0))
        var second = 0.0
        while alone.current < 9.5 {
            second += 0.1
            alone.answered(at: at(second))
        }
        #expect(second > 20 && second < 90, "back at the ceiling after \(second) s")
        var stormed = RequestRate(ceiling: 9.5)
        for n in 0..<12 { stormed.throttled(sent: at(Double(n)), at: at(Double(n))) }
        #expect(stormed.current == RequestRate.floor, "a storm of throttled answers: the floor")
        second = 11
        while stormed.current < 9.5 {
            second += 0.1
            stormed.answered(at: at(second))
        }
        #expect(second < 11 + 150, "from the floor back at the ceiling after \(second - 11) s")
        var share = RequestRate(ceiling: 9.5)
        share.throttled(sent: at(0), at: at(0))
        share.throttled(sent: at(1), at: at(1))
        share.throttled(sent: at(2), at: at(2))
        share.throttled(sent: at(3), at: at(3))
        #expect(abs(share.current - 0.296875) < 1e-9, "about a fortieth of a 10 requests/s quota")
        for tenth in 31...110 { share.answered(at: at(Double(tenth) / 10)) }
        #expect(share.current > 0.35 && share.current < 0.37, "8 s of answers add about 0.06 requests/s: \(share.current)")
    }

    @Test func neverBelowTheFloorAndANewEpisodeAfterAQuietSpell() {
        var rate = RequestRate(ceiling: 1)
        for n in 0..<20 { rate.throttled(sent: at(Double(n)), at: at(Double(n))) }
        #expect(rate.current == RequestRate.floor, "a device with a backlog keeps asking, once in 20 s")
        var quiet = RequestRate(ceiling: 8)
        quiet.throttled(sent: at(0), at: at(0))
        #expect(quiet.throttled(sent: at(119), at: at(119)) == .lowered)
        #expect(quiet.throttled(sent: at(240), at: at(240)) == .episodeBegins, "120 s without a throttled answer ends the episode")
    }

    @Test func aReloadMovesTheCeilingAndKeepsWhatWasLearned() {
        var rate = RequestRate(ceiling: 9.5)
        rate.setCeiling(19)
        #expect(rate.current == 19, "at its ceiling, it follows the new one")
        rate.throttled(sent: at(0), at: at(0))
        #expect(rate.current == 4.75)
        rate.setCeiling(30)
        #expect(rate.current == 4.75, "lowered by throttling, it stays where the quota put it")
        rate.setCeiling(2)
        #expect(rate.current == 2)
    }

    @Test func aThrottledRequestWaitsARandomPartOfTheNewIntervalAndWhatTheServiceAsked() {
        var rate = RequestRate(ceiling: 8)
        rate.throttled(sent: at(0), at: at(0))
        #expect(rate.retryDelay(retryAfter: nil, unit: 0) == 0.25)
        #expect(rate.retryDelay(retryAfter: nil, unit: 0.999) < 0.75)
        #expect(rate.retryDelay(retryAfter: 2, unit: 0.5) == 2, "never sooner than Retry-After")
    }

    @Test func underAQuotaShareTheRateStaysAndAThrottledRequestOnlySlides() {
        var rate = RequestRate(ceiling: 9.5, share: 0.25)
        #expect(abs(rate.current - 0.225) < 1e-12, "90 % of the share")
        #expect(rate.ceiling == rate.current)
        #expect(!rate.isLowered, "not lowered by throttling: status says nothing of it")
        #expect(rate.throttled(sent: at(0), at: at(0.1)) == .slides)
        #expect(rate.throttled(sent: at(0.3), at: at(0.4)) == .slides, "however often")
        #expect(abs(rate.current - 0.225) < 1e-12)
        rate.answered(at: at(5))
        rate.answered(at: at(100))
        #expect(abs(rate.current - 0.225) < 1e-12, "answers do not raise it either")
        #expect(abs(rate.retryDelay(retryAfter: nil, unit: 0) - 0.05) < 1e-12)
        #expect(abs(rate.retryDelay(retryAfter: nil, unit: 0.999) - 0.39965) < 1e-12,
                "a moment, not a whole interval (4.4 s at this rate)")
        #expect(rate.retryDelay(retryAfter: 2, unit: 0.5) == 2, "never sooner than Retry-After")
    }

    @Test func aShareIsCappedByMaxRequestRateAndReloadsMoveBetweenTheModes() {
        var rate = RequestRate(ceiling: 0.95, share: 5)
        #expect(rate.current == 0.95, "max-request-rate still caps it")
        rate.setCeiling(9.5)
        #expect(rate.current == 4.5)
        rate.setShare(nil)
        #expect(rate.share == nil && rate.current == 9.5, "without a share it starts again from the ceiling")
        #expect(rate.throttled(sent: at(0), at: at(0)) == .episodeBegins)
        #expect(rate.current == 2.375)
        rate.setShare(0.5)
        #expect(rate.current == 0.45)
        #expect(rate.throttled(sent: at(1), at: at(1)) == .slides)
        #expect(RequestRate(ceiling: 9.5, share: 0).share == nil, "0 is no share")
    }

    @Test func aShareTheQuotaCannotGiveIsGivenUpAndTheRateAdapts() {
        var fleet = RequestRate(ceiling: 9.5, share: 0.25)
        // The benchmark fleet's worst: 8 of 20 throttled, again and again.
        for round in 0..<10 {
            for n in 0..<20 {
                let t = at(Double(round * 20 + n))
                if n % 5 < 2 { #expect(fleet.throttled(sent: t, at: t) == .slides) } else { fleet.answered(at: t) }
            }
        }
        #expect(fleet.share == 0.25, "8 of 20 is a fleet settling, not an overrun")
        var over = RequestRate(ceiling: 9.5, share: 0.25)
        over.answered(at: at(0))
        for n in 1...13 { #expect(over.throttled(sent: at(Double(n)), at: at(Double(n))) == .slides) }
        #expect(over.throttled(sent: at(14), at: at(14)) == .shareOverrun, "14 of the last 20")
        #expect(over.share == nil)
        #expect(abs(over.current - 0.05625) < 1e-12, "quartered from the share's rate")
        #expect(over.ceiling == 9.5, "and free to rise towards max-request-rate")
        #expect(over.throttled(sent: at(15), at: at(15)) == .lowered, "adapting from here")
        over.setShare(0.5)
        #expect(over.current == 0.45, "a new share is in force again, its count new")
        #expect(over.throttled(sent: at(16), at: at(16)) == .slides)
    }
}
