@testable import GPSDReader
import Testing

/// When the reader rests after the start of a burst: only while resting gathers something.
@Suite struct BurstPacingTests {
    @Test func restsAfterTheFirstBurstAndWhileRestsGatherMessages() {
        var pacing = BurstPacing(window: .milliseconds(100))
        #expect(!pacing.restDue)
        pacing.woke(after: .seconds(1))
        #expect(pacing.restDue, "the first burst: worth a try")
        pacing.rest()
        #expect(!pacing.restDue)
        pacing.looked(found: true)
        pacing.looked(found: false)  // later looks (the burst read out) do not judge the rest
        pacing.woke(after: .seconds(1))
        #expect(pacing.restDue, "the last rest gathered messages")
    }

    @Test func messagesWiderApartThanTheWindowAreReadAsTheyComeAfterOneIdleRest() {
        var pacing = BurstPacing(window: .milliseconds(100))
        var rests = 0
        for _ in 0..<10 {  // a slow serial line at 1 Hz: a message every 160 ms
            pacing.woke(after: .milliseconds(160))  // since the last message, not since the rest
            if pacing.restDue {
                pacing.rest()
                rests += 1
                pacing.looked(found: false)
            }
        }
        #expect(rests == 1)
    }

    @Test func aWaitShorterThanTheWindowMeansMoreAreComing() {
        var pacing = BurstPacing(window: .milliseconds(100))
        pacing.woke(after: .milliseconds(500))
        pacing.rest()
        pacing.looked(found: false)
        pacing.woke(after: .milliseconds(500))
        #expect(!pacing.restDue, "the last rest found nothing and the wait was long")
        pacing.woke(after: .milliseconds(3))
        #expect(pacing.restDue, "messages 3 ms apart")
    }

    @Test func aZeroWindowNeverRests() {
        var pacing = BurstPacing(window: .zero)
        pacing.woke(after: .zero)
        #expect(!pacing.restDue)
        pacing.woke(after: .seconds(1))
        #expect(!pacing.restDue)
    }
}
