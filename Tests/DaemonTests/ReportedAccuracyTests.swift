@testable import Daemon
import Testing
import TrackingCore

@Suite struct ReportedAccuracyTests {
    static func accuracy(_ values: [Double?]) -> ReportedAccuracy {
        var accuracy = ReportedAccuracy()
        for value in values { accuracy.add(value) }
        return accuracy
    }

    /// Whole metres of the accuracies as they travel (22.8 goes as 23); the mean of the two middle
    /// ones for an even count; nothing before the first.
    @Test func theMedianInWholeMetres() {
        #expect(ReportedAccuracy().median == nil)
        #expect(Self.accuracy([22.8, 19.0, 26.6]).median == 23)
        #expect(Self.accuracy([4.2, 4.4, 6.1, 30]).median == 5, "4 and 6")
        #expect(Self.accuracy([25, nil, 25, nil]).median == 12.5, "a missing accuracy counts as 0, as in the tracker's sum")
        #expect(Self.accuracy([1_898.1, 2_500, 900]).median == 200, "the last count holds everything beyond 199 m")
    }

    /// gpsd's NMEA figures favour DistanceBased, a receiver's own few metres AccuracyBased; a
    /// median of 15 m spaces AccuracyBased's points as far as DistanceBased's 30 m.
    @Test func theModeThatKeepsTheTrackNearer() throws {
        let nmea = Self.accuracy([22.8, 19.0, 26.6, 22.8, 20.9])
        #expect(nmea.favoursDistanceBased && nmea.accuracyBasedSpacing == 46)
        let said = try #require(nmea.modeAdvice)
        #expect(said.contains("median accuracy of 23 m (gpsd's figure) over 5 fixes") && said.contains("about 46 m apart, wider than DistanceBased's 30 m"))
        #expect(said.hasSuffix("--position-filtering DistanceBased"))
        let own = Self.accuracy([2.3, 4.1, 3.7])
        #expect(!own.favoursDistanceBased)
        #expect(own.modeAdvice?.contains("about 8 m apart, nearer than DistanceBased's 30 m") == true)
        #expect(own.modeAdvice?.hasSuffix("--position-filtering AccuracyBased") == true)
        let even = Self.accuracy([15, 15])
        #expect(!even.favoursDistanceBased && even.modeAdvice?.contains("as far as DistanceBased's") == true)
    }

    /// Whose figures they were: the receiver's own GST where most fixes report it (gpsd's beside
    /// it), gpsd's otherwise; a reset forgets it with the counts.
    @Test func saysWhoseFiguresTheyWere() throws {
        var accuracy = ReportedAccuracy()
        for n in 0..<5 {
            let fix = try #require(Location(time: FixTime(iso8601: "2026-12-07T08:00:00Z")!.adding(seconds: Double(n)), mode: .threeD,
                                            latitude: 52.5, longitude: 13.4, horizontalAccuracy: 6.2, filterAccuracy: n == 0 ? nil : 22.8))
            accuracy.add(fix)
        }
        #expect(accuracy.receiversOwn == 4 && accuracy.mostlyReceiversOwn)
        #expect(accuracy.modeAdvice?.contains("median accuracy of 6 m (its own, from NMEA GST) over 5 fixes") == true, "\(accuracy.modeAdvice ?? "-")")
        accuracy.reset()
        #expect(accuracy.receiversOwn == 0 && !accuracy.mostlyReceiversOwn)
    }

    /// A watch of hours keeps counts, not fixes: a million accuracies and a reset.
    @Test func holdsCountsNotFixes() {
        var accuracy = ReportedAccuracy()
        for n in 0..<1_000_000 { accuracy.add(Double(n % 40)) }
        #expect(accuracy.total == 1_000_000 && accuracy.median == 19.5)
        accuracy.reset()
        #expect(accuracy.total == 0 && accuracy.median == nil)
    }
}
