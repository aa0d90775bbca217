@testable import Daemon
import Testing
import TrackingCore

@Suite struct AccuracySpacingAdviceTests {
    static let start = FixTime(iso8601: "2026-11-01T08:00:00Z")!

    static func point(_ n: Int, accuracy: Double?) -> Location {
        Location(time: start.adding(seconds: 40 * Double(n)), mode: .threeD, latitude: 52.5 + 4e-4 * Double(n), longitude: 13.4,
                 horizontalAccuracy: accuracy)!
    }

    /// gpsd's NMEA figures (19 m times the HDOP): once ten points have gone, one warning with the
    /// spacing they cost and the command to DistanceBased; never again in the run.
    @Test func saysOnceWhenTheAccuraciesSpacePointsWiderThanDistanceBased() throws {
        var advice = AccuracySpacingAdvice(tracker: "fleet")
        let accuracies = [22.8, 19.0, 26.6, 17.1, 22.8, 24.7, 15.2, 22.8, 20.9, 22.8]
        for (n, accuracy) in accuracies.dropLast().enumerated() {
            let said = advice.observe(Self.point(n, accuracy: accuracy), under: .accuracyBased)
            #expect(said == nil, "after \(n + 1) points")
        }
        let tenth = advice.observe(Self.point(9, accuracy: accuracies[9]), under: .accuracyBased)
        let said = try #require(tenth)
        #expect(said.contains("accuracies of about 23 m"), "the median of 10 as they travel, 23 and 23: \(said)")
        #expect(said.contains("nearer the last one than about 46 m"))
        #expect(said.contains("aws location update-tracker --tracker-name fleet --position-filtering DistanceBased"))
        #expect(said.contains("these are gpsd's figures: where the receiver sends NMEA GST, accuracy-source = gst"), "\(said)")
        for n in 10..<40 {
            let again = advice.observe(Self.point(n, accuracy: 40), under: .accuracyBased)
            #expect(again == nil)
        }
    }

    /// A receiver whose own GST figures are wide (gpsd's kept beside them): the advice says the
    /// figures are the receiver's own, and does not send the operator to GST.
    @Test func saysTheFiguresAreTheReceiversOwnWhereTheyAre() throws {
        var advice = AccuracySpacingAdvice(tracker: "fleet")
        var said: String?
        for n in 0..<10 {
            var point = Self.point(n, accuracy: 21.5 + Double(n % 3))
            if n != 4 { point.filterAccuracy = 28.5 }
            said = advice.observe(point, under: .accuracyBased) ?? said
        }
        let text = try #require(said)
        #expect(text.contains("--position-filtering DistanceBased") && text.contains("these are the receiver's own figures, from its NMEA GST"), "\(text)")
        #expect(!text.contains("accuracy-source"), "\(text)")
    }

    /// A receiver's own estimate (a u-blox's NAV-PVT, a few metres), the other modes, and a
    /// median of exactly 15 m (AccuracyBased's spacing then equals DistanceBased's) say nothing.
    @Test func saysNothingWhereAccuracyBasedIsNoCoarser() {
        var own = AccuracySpacingAdvice(tracker: "fleet"), other = AccuracySpacingAdvice(tracker: "fleet")
        var even = AccuracySpacingAdvice(tracker: "fleet")
        for n in 0..<50 {
            let ownSaid = own.observe(Self.point(n, accuracy: 2.5 + Double(n % 4)), under: .accuracyBased)
            #expect(ownSaid == nil)
            for mode in [TrackerFiltering.distanceBased, .timeBased, .none] {
                let otherSaid = other.observe(Self.point(n, accuracy: 25), under: mode)
                #expect(otherSaid == nil)
            }
            let evenSaid = even.observe(Self.point(n, accuracy: 15), under: .accuracyBased)
            #expect(evenSaid == nil)
        }
    }

    /// Points without an accuracy count as 0, as in the tracker's sum; the median of ten is that
    /// of the two middle ones, so five of 25 m and five without give 12.5 m and no advice.
    @Test func aMissingAccuracyCountsAsNothing() {
        var advice = AccuracySpacingAdvice(tracker: "fleet")
        for n in 0..<19 {
            let said = advice.observe(Self.point(n, accuracy: n < 10 && n % 2 == 1 ? nil : 25), under: .accuracyBased)
            #expect(said == nil, "after \(n + 1) points")
        }
        let twentieth = advice.observe(Self.point(19, accuracy: 25), under: .accuracyBased)
        #expect(twentieth != nil, "the next ten, all 25 m")
    }
}
