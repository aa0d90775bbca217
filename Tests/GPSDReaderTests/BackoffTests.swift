import GPSDReader
import Testing

@Suite struct BackoffTests {
    @Test func doublesFromOneSecondUpToThirty() {
        var backoff = Backoff(initial: .seconds(1), maximum: .seconds(30))
        let delays = (0..<7).map { _ in backoff.next() }
        #expect(delays == [.seconds(1), .seconds(2), .seconds(4), .seconds(8), .seconds(16), .seconds(30), .seconds(30)])
        backoff.reset()
        #expect(backoff.next() == .seconds(1))
    }
}
