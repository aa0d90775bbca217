@testable import Daemon
import Testing
import TrackingCore

/// Status names the accuracy the last fix reported and whose figure it is: the receiver's own
/// GST (gpsd's beside it) or gpsd's alone. An AccuracyBased tracker spaces the points by it.
@Suite struct DaemonStatusAccuracyTests {
    static let time = FixTime(iso8601: "2026-12-07T08:00:01Z")!

    static func status(_ fix: Location) throws -> DaemonStatus {
        let text = """
            {"pid":1,"updated":"2026-12-07T08:00:02.000Z","gpsd":{"connected":true,"endpoint":"127.0.0.1:2947"},
             "filter":{"in":1,"kept":1,"rejected":{}},"spool":{"queued":0,"deadLetters":0,"evictions":0,"heldInMemory":0,"storeFailures":0},
             "upload":{"sink":"aws-location","uploaded":0},"tracker":{"withheld":0},"credentials":{}}
            """
        var status = try #require(DaemonStatus.decode(text))
        status.lastFix = DaemonStatus.Fix(fix)
        // As `gpstrackd status` reads it: through status.json.
        return try #require(DaemonStatus.decode(status.json()))
    }

    @Test func theReceiversGSTIsSaidWithGPSDsFigureBesideIt() throws {
        let fix = try #require(Location(time: Self.time, mode: .threeD, latitude: 52.5, longitude: 13.4,
                                         horizontalAccuracy: 6.22, filterAccuracy: 22.8))
        let status = try Self.status(fix)
        #expect(status.lastFix?.horizontalAccuracy == 6.22 && status.lastFix?.filterAccuracy == 22.8)
        #expect(status.summary.contains("last fix: 3d at 2026-12-07T08:00:01.000Z, 52.5, 13.4, accuracy 6.2 m (the receiver's GST; gpsd's 23 m)"),
                "\(status.summary)")
    }

    @Test func gpsdsFigureAloneIsSaidToBeGPSDs() throws {
        let fix = try #require(Location(time: Self.time, mode: .twoD, latitude: 52.5, longitude: 13.4, horizontalAccuracy: 17.1))
        let status = try Self.status(fix)
        #expect(status.lastFix?.filterAccuracy == nil)
        #expect(status.summary.contains(", accuracy 17 m (gpsd's)"), "\(status.summary)")
        let unknown = try Self.status(try #require(Location(time: Self.time, mode: .twoD, latitude: 52.5, longitude: 13.4)))
        #expect(unknown.summary.contains("last fix: 2d at 2026-12-07T08:00:01.000Z, 52.5, 13.4\n"), "no accuracy, nothing said: \(unknown.summary)")
    }
}
