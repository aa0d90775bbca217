import Testing
import TrackingCore

@Suite struct FixTimeTests {
    @Test func formatsUTCWithMilliseconds() {
        let time = FixTime(nanosecondsSince1970: 1_793_520_001_000_000_000)
        #expect(time.iso8601 == "2026-11-01T08:00:01.000Z")
        #expect(FixTime(nanosecondsSince1970: 1_536_349_257_500_000_000).iso8601 == "2018-09-07T19:40:57.500Z")
        #expect(FixTime(nanosecondsSince1970: 951_782_400_123_456_789).iso8601 == "2000-02-29T00:00:00.123Z")
    }

    /// What goes to the tracker: a whole second without `.000`, and parsed back to the same time.
    @Test func writesTheWireFormShortestForWholeSeconds() {
        let whole = FixTime(nanosecondsSince1970: 1_793_520_001_000_000_000)
        #expect(whole.wireISO8601 == "2026-11-01T08:00:01Z")
        let fraction = FixTime(nanosecondsSince1970: 1_793_520_001_200_000_000)
        #expect(fraction.wireISO8601 == "2026-11-01T08:00:01.200Z")
        for time in [whole, fraction, FixTime(nanosecondsSince1970: 951_782_400_001_000_000)] {
            #expect(FixTime(iso8601: time.wireISO8601) == time)
        }
    }

    @Test func parsesWhatItWrites() {
        for nanos: Int64 in [0, 1_000_000, 86_399_999_000_000, 951_782_400_123_000_000, 1_793_520_001_999_000_000] {
            let time = FixTime(nanosecondsSince1970: nanos)
            #expect(FixTime(iso8601: time.iso8601) == time)
        }
    }

    @Test func parsesOffsetsAndFractions() {
        #expect(FixTime(iso8601: "2026-11-01T09:00:01+01:00") == FixTime(iso8601: "2026-11-01T08:00:01Z"))
        #expect(FixTime(iso8601: "2026-11-01T08:00:01.25Z")?.nanosecondsSince1970 == 1_793_520_001_250_000_000)
        #expect(FixTime(iso8601: "2026-11-01T08:00:01.123456789Z")?.nanosecondsSince1970 == 1_793_520_001_123_456_789)
    }

    @Test func rejectsMalformedText() {
        for text in ["", "2026-11-01", "2026-13-01T00:00:00Z", "2026-11-01T25:00:00Z", "2026-11-01T08:00:01",
                     "2026-11-01T08:00:01.Z", "2026-11-01T08:00:01Zjunk", "20x6-11-01T08:00:01Z"] {
            #expect(FixTime(iso8601: text) == nil, "\(text)")
        }
    }

    @Test func writesWholeMillisecondsRoundingDown() {
        #expect(FixTime(nanosecondsSince1970: 1_999_999).iso8601 == "1970-01-01T00:00:00.001Z")
    }

    @Test func rejectsZeroTimespec() {
        #expect(FixTime(seconds: 0, nanoseconds: 0) == nil)
        #expect(FixTime(seconds: -5, nanoseconds: 0) == nil)
        #expect(FixTime(seconds: 1, nanoseconds: 500)?.nanosecondsSince1970 == 1_000_000_500)
    }

    @Test func ordersAndMeasures() {
        let a = FixTime(iso8601: "2026-11-01T08:00:00Z")!
        let b = a.adding(seconds: 1.5)
        #expect(a < b)
        #expect(a.seconds(to: b) == 1.5)
        #expect(b.iso8601 == "2026-11-01T08:00:01.500Z")
    }
}
