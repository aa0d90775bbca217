import Testing
@testable import TrackingCore

/// What the places owed ask of the spacing's next choice, read from the wishes owed as they lie.
@Suite struct TrackerSpacingPlacesDueTests {
    static func wish(_ second: Double, _ trigger: KeepTrigger) -> KeptLocation {
        KeptLocation(location: Track.fix(second), trigger: trigger)
    }

    static func time(_ second: Double) -> FixTime { Track.fix(second).time }

    @Test func cornersAloneAskForNoPlace() {
        let due = TrackerSpacing.PlacesDue([Self.wish(3, .deviation), Self.wish(5, .angle), Self.wish(8, .distance)])
        #expect(due.stop == nil && !due.other && !due.heartbeats && due.earliest == nil && due.latest == nil)
        #expect(due.onlyStops, "no place owed")
        #expect(!due.atOnce(left: false) && !due.atOnce(left: true))
    }

    @Test func heartbeatsOneAfterAnotherAreOneNeedSinceTheFirst() {
        // The corner at 40 s sets no time; the second heartbeat (70 s) counts as the first (10 s).
        let due = TrackerSpacing.PlacesDue([Self.wish(10, .heartbeat), Self.wish(40, .deviation), Self.wish(70, .heartbeat)])
        #expect(due.earliest == Self.time(10) && due.latest == Self.time(10))
        #expect(due.stop == nil && !due.other && due.heartbeats && !due.onlyStops)
        #expect(!due.atOnce(left: false), "a heartbeat can wait to be met by a fix since it fell due")
    }

    @Test func aStopIsMetAtOnceUntilTheVehicleHasLeftIt() {
        let due = TrackerSpacing.PlacesDue([Self.wish(10, .heartbeat), Self.wish(20, .stop), Self.wish(25, .stop)])
        #expect(due.stop == Self.time(20), "the first stop owed")
        #expect(due.earliest == Self.time(10) && due.latest == Self.time(25))
        #expect(due.atOnce(left: false) && !due.atOnce(left: true))
        #expect(!due.onlyStops, "a heartbeat beside them")
        #expect(TrackerSpacing.PlacesDue([Self.wish(20, .stop), Self.wish(22, .deviation)]).onlyStops)
    }

    @Test func aDepartureOrTheEndIsMetAtOnceWhateverTheStop() {
        for trigger in [KeepTrigger.departure, .final, .first] {
            let due = TrackerSpacing.PlacesDue([Self.wish(30, trigger), Self.wish(12, .stop)])
            #expect(due.other && due.atOnce(left: true) && !due.onlyStops, "\(trigger)")
            #expect(due.earliest == Self.time(12) && due.latest == Self.time(30), "in any order: \(trigger)")
        }
    }
}
