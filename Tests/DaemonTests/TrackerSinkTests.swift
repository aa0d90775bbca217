@testable import Daemon
import AWSLocation
import Foundation
import Testing
import TrackingCore

/// What the tracker sink takes up from the configuration and the last run's state directory.
@Suite struct TrackerSinkTests {
    @Test func connectionKeepaliveSetsTheTransportsKeepalives() {
        var c = DaemonConfiguration(deviceID: "van-3", stateDirectory: "/tmp")
        #expect(TrackerSink.transportConfiguration(c).keepAlive == IdleKeepAlive(every: .seconds(45), window: .seconds(300)))
        c.connectionKeepalive = 20.5
        #expect(TrackerSink.transportConfiguration(c).keepAlive?.every == .milliseconds(20_500))
        c.connectionKeepalive = 0
        #expect(TrackerSink.transportConfiguration(c).keepAlive == nil, "0: none")
    }

    @Test func theTLSSessionsAreKeptInTheStateDirectory() {
        let c = DaemonConfiguration(deviceID: "van-3", stateDirectory: "/var/lib/gpstrackd")
        #expect(TrackerSink.transportConfiguration(c).sessionFile == "/var/lib/gpstrackd/tls-sessions.json")
    }

    @Test func theDaysBytesComeBackFromTheLastStatus() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("gpstrackd-sink-\(UUID().uuidString.prefix(8))").path
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        #expect(TrackerSink.spentToday(in: directory) == nil, "no status yet: nothing spent")
        let status = """
            {"pid":1,"updated":"2026-12-01T15:00:00.000Z","gpsd":{"connected":true,"endpoint":"127.0.0.1:2947"},
             "filter":{"in":1,"kept":1,"rejected":{}},"spool":{"queued":0,"deadLetters":0,"evictions":0,"heldInMemory":0,"storeFailures":0},
             "upload":{"sink":"aws-location","uploaded":3,"bytesToday":48213,"dataBudget":1000000},"tracker":{"withheld":0},"credentials":{}}
            """
        try status.write(toFile: directory + "/status.json", atomically: true, encoding: .utf8)
        let spent = try #require(TrackerSink.spentToday(in: directory))
        #expect(spent.bytes == 48_213)
        #expect(spent.asOf == FixTime(iso8601: "2026-12-01T15:00:00Z"))
        try "{".write(toFile: directory + "/status.json", atomically: true, encoding: .utf8)
        #expect(TrackerSink.spentToday(in: directory) == nil, "an unreadable snapshot is no spend")
    }
}
