import AWSLocation
import Testing

/// When an idle connection gets its keepalives, on instants given (no clock read, no sleep).
@Suite struct IdleKeepAliveTests {
    let start = ContinuousClock.now

    func at(_ seconds: Int) -> ContinuousClock.Instant { start + .seconds(seconds) }

    @Test func aKeepaliveFollowsEachSilenceOfItsInterval() {
        let policy = IdleKeepAlive(every: .seconds(45), window: .seconds(300))
        // Right after the request, the first is due 45 s on; after each one, 45 s after it.
        #expect(policy.next(lastRequest: at(0), lastTraffic: at(0)) == at(45))
        #expect(policy.next(lastRequest: at(0), lastTraffic: at(45)) == at(90))
        #expect(policy.next(lastRequest: at(0), lastTraffic: at(252)) == at(297))
    }

    @Test func aConnectionIdlePastItsWindowIsLeftToClose() {
        let policy = IdleKeepAlive(every: .seconds(45), window: .seconds(300))
        // The keepalive that would fall after the window is not sent: 6 at most by default.
        #expect(policy.next(lastRequest: at(0), lastTraffic: at(270)) == nil)
        var sent = 0
        var traffic = at(0)
        while let due = policy.next(lastRequest: at(0), lastTraffic: traffic) {
            sent += 1
            traffic = due
        }
        #expect(sent == 6)
        #expect(IdleKeepAlive() == policy, "the defaults: every 45 s, for 300 s")
    }

    @Test func aKeepaliveDueExactlyAtTheWindowsEndStillGoes() {
        let policy = IdleKeepAlive(every: .seconds(50), window: .seconds(100))
        #expect(policy.next(lastRequest: at(10), lastTraffic: at(60)) == at(110))
        #expect(policy.next(lastRequest: at(10), lastTraffic: at(61)) == nil)
    }

    @Test func aNewRequestOpensANewWindow() {
        let policy = IdleKeepAlive(every: .seconds(45), window: .seconds(300))
        #expect(policy.next(lastRequest: at(0), lastTraffic: at(280)) == nil)
        #expect(policy.next(lastRequest: at(280), lastTraffic: at(280)) == at(325))
    }
}
