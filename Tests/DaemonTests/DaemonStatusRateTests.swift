@testable import Daemon
import Testing
import TrackingCore

/// How status, `STATUS=` and the metrics speak of the request rate: lowered by throttling, or
/// held at a `quota-share`.
@Suite struct DaemonStatusRateTests {
    static func status(rate: Double, ceiling: Double, share: Double?) throws -> DaemonStatus {
        let shareField = share.map { ",\"quotaShare\":\($0)" } ?? ""
        let text = """
            {"pid":1,"updated":"2026-12-05T08:00:00.000Z","gpsd":{"connected":true,"endpoint":"127.0.0.1:2947"},
             "filter":{"in":1,"kept":1,"rejected":{}},"spool":{"queued":500,"deadLetters":0,"evictions":0,"heldInMemory":0,"storeFailures":0},
             "upload":{"sink":"aws-location","uploaded":30,"requests":40,"throttled":10,"requestRate":\(rate),"maxRequestRate":\(ceiling)\(shareField)},
             "tracker":{"withheld":0},"credentials":{}}
            """
        return try #require(DaemonStatus.decode(text))
    }

    @Test func aRateLoweredByThrottlingIsSaidSo() throws {
        let status = try Self.status(rate: 0.3, ceiling: 9.5, share: nil)
        #expect(status.summary.contains("requests: 40, 10 throttled (25 %); rate 0.3/s (lowered by throttling; at most 9.5/s)"))
        #expect(status.serviceStatus(at: FixTime(iso8601: "2026-12-05T08:00:05Z")!).hasSuffix(", throttled: 0.3 requests/s"))
        #expect(!status.metrics.contains("gpstrackd_quota_share"))
    }

    @Test func aRateHeldAtTheQuotaShareIsNotCalledLowered() throws {
        let status = try Self.status(rate: 0.225, ceiling: 0.225, share: 0.25)
        #expect(status.summary.contains("requests: 40, 10 throttled (25 %); rate 0.23/s (90 % of quota-share 0.25/s)"))
        #expect(!status.summary.contains("lowered"))
        #expect(!status.serviceStatus(at: FixTime(iso8601: "2026-12-05T08:00:05Z")!).contains("throttled"))
        #expect(status.metrics.contains("gpstrackd_quota_share 0.25\n"))
        #expect(status.metrics.contains("gpstrackd_request_rate 0.225\n"))
    }
}
