@testable import Daemon
import Testing

/// How `gpstrackd status` speaks of the tracker's mode: where it came from, when the tracker last
/// answered, and, while asking it again fails, why.
@Suite struct DaemonStatusTrackerTests {
    static func status(tracker: String) throws -> DaemonStatus {
        let text = """
            {"pid":1,"updated":"2026-12-07T09:00:00.000Z","gpsd":{"connected":true,"endpoint":"127.0.0.1:2947"},
             "filter":{"in":1,"kept":1,"rejected":{}},"spool":{"queued":0,"deadLetters":0,"evictions":0,"heldInMemory":0,"storeFailures":0},
             "upload":{"sink":"aws-location","uploaded":30},"tracker":\(tracker),"credentials":{}}
            """
        return try #require(DaemonStatus.decode(text))
    }

    @Test func theLastAnswerAndAFailureSinceAreSaid() throws {
        let answered = try Self.status(tracker: """
            {"filtering":"AccuracyBased","source":"DescribeTracker","withheld":3,"answered":"2026-12-07T08:12:00.000Z"}
            """)
        #expect(answered.summary.contains("tracker filtering: AccuracyBased (DescribeTracker), 3 withheld, last answered 2026-12-07T08:12:00.000Z\n"),
                "\(answered.summary)")
        let failing = try Self.status(tracker: """
            {"filtering":"AccuracyBased","source":"DescribeTracker","withheld":3,"answered":"2026-12-07T08:12:00.000Z",
             "askFailure":"the tracker service failed (HTTP 503: down); will retry"}
            """)
        #expect(failing.summary.contains(", last answered 2026-12-07T08:12:00.000Z; asking again fails: the tracker service failed (HTTP 503: down)"),
                "\(failing.summary)")
    }

    @Test func aConfiguredModeAndAnOlderStatusFileSayNoAnswer() throws {
        // A configured mode is never asked; status.json from before these fields decodes the same.
        let configured = try Self.status(tracker: #"{"filtering":"DistanceBased","source":"configured","withheld":0}"#)
        #expect(configured.summary.contains("tracker filtering: DistanceBased (configured), 0 withheld\n"), "\(configured.summary)")
        #expect(!configured.summary.contains("answered"))
    }
}
