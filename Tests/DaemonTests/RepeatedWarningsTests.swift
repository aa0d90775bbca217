@testable import Daemon
import Synchronization
import Testing

@Suite struct RepeatedWarningsTests {
    final class Lines: Sendable {
        let value = Mutex<[String]>([])
        func append(_ line: String) { value.withLock { $0.append(line) } }
        var all: [String] { value.withLock { $0 } }
    }

    @Test func logsOncePerIntervalWithACount() {
        let lines = Lines()
        let logger = Logger(level: .info, format: .journal, sink: { lines.append($0) })
        let warnings = RepeatedWarnings(interval: .seconds(60))
        let t0 = ContinuousClock.now
        for second in 0..<150 {
            warnings.log("disk", "could not store a position", to: logger, at: t0.advanced(by: .seconds(second)))
        }
        #expect(lines.all == [
            "<4>could not store a position\n",
            "<4>could not store a position (59 more like this since the last report)\n",
            "<4>could not store a position (59 more like this since the last report)\n",
        ])
    }
}
