import GPSDReader
import Testing
import TrackingCore

@Suite struct TPVReportTests {
    let time = FixTime(iso8601: "2026-11-01T08:00:01Z")!

    @Test func horizontalAccuracyIsEPHWhenPresent() {
        #expect(TPVReport(mode: 3, eph: 4.2, epx: 3, epy: 4).horizontalAccuracy == 4.2)
    }

    @Test func horizontalAccuracyFallsBackToEPXAndEPY() {
        #expect(TPVReport(mode: 3, eph: .nan, epx: 3, epy: 4).horizontalAccuracy == 5)
        #expect(TPVReport(mode: 3, eph: -1, epx: 3, epy: 4).horizontalAccuracy == 5)
        #expect(TPVReport(mode: 3, epx: 3).horizontalAccuracy == nil)
    }

    @Test func verticalAccuracyIsEPV() {
        #expect(TPVReport(mode: 3, epv: 9.5).verticalAccuracy == 9.5)
        #expect(TPVReport(mode: 3, epv: .nan).verticalAccuracy == nil)
    }

    @Test func libgpsNaNSentinelsBecomeNil() {
        let report = TPVReport(mode: 3, time: time, latitude: 1, longitude: 2, altitudeMSL: .nan, course: .nan,
                               speed: .nan, climb: .nan, eph: .nan, epv: .nan, eps: .nan, epd: .nan)
        let location = report.location(heading: nil)
        #expect(location?.altitudeMSL == nil)
        #expect(location?.course == nil)
        #expect(location?.speed == nil)
        #expect(location?.climb == nil)
        #expect(location?.horizontalAccuracy == nil)
        #expect(location?.speedAccuracy == nil)
        #expect(location?.courseAccuracy == nil)
    }

    @Test func noLocationWithoutAFix() {
        #expect(TPVReport(mode: 1, time: time, latitude: 1, longitude: 2).location(heading: nil) == nil)
        #expect(TPVReport(mode: 3, latitude: 1, longitude: 2).location(heading: nil) == nil)
    }

    @Test func altitudeOnlyForA3DFix() {
        let report = TPVReport(mode: 2, time: time, latitude: 1, longitude: 2, altitudeMSL: 30, altitudeHAE: 70, epv: 5)
        let location = report.location(heading: nil)
        #expect(location?.altitudeMSL == nil)
        #expect(location?.altitudeHAE == nil)
        #expect(location?.verticalAccuracy == nil)
    }

    @Test func mergeKeepsTheHigherModeAndFillsGaps() {
        let older = TPVReport(mode: 3, time: time, latitude: 1, longitude: 2, speed: 3, eph: 9)
        let newer = TPVReport(mode: 2, time: time, latitude: 1.5, longitude: 2.5, course: 90)
        let merged = newer.merged(over: older)
        #expect(merged.mode == 3)
        #expect(merged.latitude == 1.5)
        #expect(merged.speed == 3)
        #expect(merged.course == 90)
        #expect(merged.eph == 9)
    }
}
