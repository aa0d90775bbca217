import AWSLocation
import Testing
import TrackingCore
@testable import Uploader

@Suite struct TokenBucketTests {
    @Test func aBucketStartedWithPartOfATokenWaitsTheRestOfAnInterval() {
        let t0 = ContinuousClock.now
        var bucket = TokenBucket(rate: 0.25, tokens: 0.75)
        let waits = [bucket.take(at: t0), bucket.take(at: t0 + .seconds(1)), bucket.take(at: t0 + .seconds(2))]
        #expect(waits[0] == .seconds(1), "the first request waits a quarter of the 4 s interval")
        #expect(waits[1] == nil)
        #expect(waits[2] == .seconds(3), "then one every interval from that phase")
        var clamped = TokenBucket(rate: 1, tokens: 7)
        let first = clamped.take(at: t0)
        let second = clamped.take(at: t0)
        #expect(first == nil)
        #expect(second == .seconds(1), "never more than the burst")
    }

    @Test func spacesRequestsAtTheRate() {
        let t0 = ContinuousClock.now
        var bucket = TokenBucket(rate: 10)
        #expect(bucket.take(at: t0) == nil)
        #expect(bucket.take(at: t0) == .milliseconds(100))
        #expect(bucket.take(at: t0.advanced(by: .milliseconds(50))) == .milliseconds(50))
        #expect(bucket.take(at: t0.advanced(by: .milliseconds(100))) == nil)
        // However long idle, the burst stays 1: never more than 10 in any second.
        var taken = 0
        var now = t0.advanced(by: .seconds(60))
        let end = now.advanced(by: .seconds(1))
        while now < end {
            if let wait = bucket.take(at: now) { now = now.advanced(by: wait) } else { taken += 1 }
        }
        #expect(taken == 10)
    }
}

@Suite struct RetryPolicyTests {
    @Test func doublesFromOneSecondToFiveMinutesWithFullJitter() {
        let policy = RetryPolicy()
        #expect((1...10).map { policy.ceiling(failures: $0) } == [1, 2, 4, 8, 16, 32, 64, 128, 256, 300])
        #expect(policy.delay(failures: 4, retryAfter: nil, unit: 0.5) == 4)
        #expect(policy.delay(failures: 4, retryAfter: nil, unit: 0) == 0)
        #expect(policy.delay(failures: 1, retryAfter: 7, unit: 0.9) == 7, "Retry-After is a floor")
        #expect(policy.delay(failures: 60, retryAfter: nil, unit: 0.999) < 300)
    }
}

@Suite struct UploaderEventTests {
    @Test func backlogLinesReadLikeAStatusReport() {
        let now = FixTime(iso8601: "2026-11-30T12:00:00Z")!
        let oldest = now.adding(seconds: -(3 * 86_400 + 4 * 3600 + 120))
        #expect(UploaderEvent.backlog(queued: 52_310, oldest: oldest, ratePerSecond: 97.6, now: now).description
            == "backlog 52,310 positions, oldest 3 d 4 h, draining at 98/s")
        #expect(UploaderEvent.drained(uploaded: 1_000_000, seconds: 3725).description == "backlog drained: 1,000,000 positions uploaded in 1 h 2 min")
        #expect(UploaderEvent.failing("no route", retryIn: 3.6).description == "uploads failing: no route; retrying in 4 s")
    }

    @Test func progressIsASummaryNotALinePerRequest() {
        var tracker = ProgressTracker(interval: 30, threshold: 100)
        let t0 = ContinuousClock.now
        let wall = FixTime(iso8601: "2026-11-30T12:00:00Z")!
        #expect(tracker.due(at: t0))
        guard case let .backlog(queued, _, _, _) = tracker.update(queued: 5000, oldest: wall, uploaded: 0, at: t0, wall: wall) else {
            Issue.record("expected a backlog line")
            return
        }
        #expect(queued == 5000)
        #expect(!tracker.due(at: t0.advanced(by: .seconds(10))))
        let t1 = t0.advanced(by: .seconds(30))
        guard case let .backlog(_, _, rate, _) = tracker.update(queued: 2000, oldest: wall, uploaded: 3000, at: t1, wall: wall) else {
            Issue.record("expected a backlog line")
            return
        }
        #expect(rate == 100)
        #expect(tracker.update(queued: 0, oldest: nil, uploaded: 5000, at: t0.advanced(by: .seconds(60)), wall: wall)
            == .drained(uploaded: 5000, seconds: 60))
        #expect(tracker.update(queued: 0, oldest: nil, uploaded: 5000, at: t0.advanced(by: .seconds(90)), wall: wall) == nil)
    }
}

@Suite struct WakeupTests {
    @Test func waitsForTheTimeoutOrASignalAndNeverSpins() async {
        let wakeup = Wakeup()
        let clock = ContinuousClock()
        var start = clock.now
        await wakeup.wait(upTo: .milliseconds(100))
        #expect(clock.now - start >= .milliseconds(100))
        wakeup.signal()
        start = clock.now
        await wakeup.wait(upTo: .seconds(10))
        #expect(clock.now - start < .seconds(1), "a pending signal returns at once")
        // After a timeout the next wait still waits: the wakeup is not used up.
        start = clock.now
        await wakeup.wait(upTo: .milliseconds(50))
        await wakeup.wait(upTo: .milliseconds(50))
        #expect(clock.now - start >= .milliseconds(100))
        let waiter = Task {
            let begin = clock.now
            await wakeup.wait(upTo: .seconds(10))
            return clock.now - begin
        }
        try? await Task.sleep(for: .milliseconds(50))
        wakeup.signal()
        #expect(await waiter.value < .seconds(1))
    }

    /// A wait ended early leaves its timer for later waits: they still end on time, whether their
    /// deadline comes before that timer's or after it.
    @Test func waitsAfterAnEarlySignalStillEndOnTime() async {
        let clock = ContinuousClock()
        // Before the timer: a 50 ms wait after a 10 s one ended early ends long before 10 s (the
        // margin is wide: the suite's other tests share the two threads that run this one).
        let early = Wakeup()
        let first = Task { await early.wait(upTo: .seconds(10)) }
        try? await Task.sleep(for: .milliseconds(20))
        early.signal()
        await first.value
        var start = clock.now
        await early.wait(upTo: .milliseconds(50))
        var waited = clock.now - start
        #expect(waited >= .milliseconds(50) && waited < .seconds(5), "\(waited)")
        // After the timer: a 1.5 s wait after a 1 s one ended early lasts its 1.5 s; the timer sleeps on.
        let late = Wakeup()
        let second = Task { await late.wait(upTo: .seconds(1)) }
        try? await Task.sleep(for: .milliseconds(20))
        late.signal()
        await second.value
        start = clock.now
        await late.wait(upTo: .milliseconds(1500))
        waited = clock.now - start
        #expect(waited >= .milliseconds(1500), "\(waited)")
    }
}
