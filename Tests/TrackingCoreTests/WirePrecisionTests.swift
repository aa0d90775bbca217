import Testing
import TrackingCore

@Suite struct WirePrecisionTests {
    let time = FixTime(iso8601: "2026-11-01T08:00:01Z")!

    @Test func degreesTravelToAMillionth() {
        // gpsd's JSON: up to 9 decimals, from NMEA's 4-decimal minutes.
        #expect(WirePrecision.degrees(13.377718833) == 13.377719)
        #expect(WirePrecision.degrees(52.516294167) == 52.516294)
        #expect(WirePrecision.degrees(-122.334455667) == -122.334456)
        #expect(WirePrecision.degrees(52.5162865) == 52.516287)
        #expect(WirePrecision.degrees(13.4) == 13.4, "6 decimals or fewer travel as they are")
        #expect("\(WirePrecision.degrees(13.377718833))" == "13.377719", "the rounded value prints short")
        #expect(WirePrecision.degrees(.nan).isNaN)
    }

    @Test func accuraciesTravelToTwoSignificantFigures() {
        let cases: [(Double, Double, String)] = [
            (22.8, 23, "23.0"), (19, 19, "19.0"), (4.56, 4.6, "4.6"), (4.5, 4.5, "4.5"), (0.0143, 0.014, "0.014"),
            (142.5, 140, "140.0"), (1898.1, 1900, "1900.0"), (99.96, 100, "100.0"), (9.96, 10, "10.0"),
        ]
        for (metres, sent, printed) in cases {
            #expect(WirePrecision.accuracy(metres) == sent, "\(metres)")
            #expect("\(WirePrecision.accuracy(metres))" == printed, "\(metres)")
        }
        #expect(WirePrecision.accuracy(0) == 0)
        #expect(WirePrecision.accuracy(.infinity) == .infinity)
    }

    /// The model of the tracker's rule decides on the numbers the tracker receives. Across its
    /// boundary (30 m and `formulaMargin`) at gpsd's resolution (1e-9 degrees), DistanceBased
    /// says "stored" exactly when the positions as sent are that far apart; some of those fixes
    /// are that far apart by their own digits and not as sent, so a rule that read the fix's
    /// digits would fail here.
    @Test func distanceBasedReadsThePositionsAsTheyTravel() throws {
        let last = try #require(Location(time: time, mode: .threeD, latitude: 52.500000449, longitude: 13.4))
        let sentLast = (latitude: WirePrecision.degrees(last.latitude), longitude: WirePrecision.degrees(last.longitude))
        var disagreeing = 0
        let bound = TrackerFiltering.distance * TrackerFiltering.formulaMargin
        // 30.18 m north is about 2.7142e-4 degrees; sweep 2e-6 degrees either side.
        for step in -2000...2000 {
            let latitude = last.latitude + 2.7142e-4 + Double(step) * 1e-9
            let next = try #require(Location(time: time.adding(seconds: 60), mode: .threeD, latitude: latitude, longitude: 13.4))
            let sent = Geodesy.distance(sentLast, (WirePrecision.degrees(latitude), WirePrecision.degrees(13.4)))
            #expect(TrackerFiltering.distanceBased.stores(next, after: last) == (sent >= bound), "\(latitude)")
            if (Geodesy.distance(last, next) >= bound) != (sent >= bound) { disagreeing += 1 }
        }
        #expect(disagreeing > 0, "the sweep holds fixes on which the fix's digits and the sent ones disagree")
    }

    /// AccuracyBased sums the accuracies as sent: 22.8 m each travels as 23, so 46.0 m of
    /// movement is short of the 46 m the tracker asks with `formulaMargin` (46.28 m), though
    /// more than the fixes' 45.6 m with it (45.87 m).
    @Test func accuracyBasedSumsTheAccuraciesAsTheyTravel() throws {
        let last = try #require(Location(time: time, mode: .threeD, latitude: 52.5, longitude: 13.4, horizontalAccuracy: 22.8))
        func moved(_ metres: Double) throws -> Location {
            try #require(Location(time: time.adding(seconds: 60), mode: .threeD, latitude: 52.5 + metres / 111_195, longitude: 13.4,
                                  horizontalAccuracy: 22.8))
        }
        let margin = TrackerFiltering.formulaMargin
        let short = try moved(46.0)
        #expect(Geodesy.distance(last, short) > 45.6 * margin && Geodesy.distance(last, short) < 46 * margin)
        #expect(!TrackerFiltering.accuracyBased.stores(short, after: last))
        #expect(TrackerFiltering.accuracyBased.stores(try moved(46.4), after: last))
    }
}
