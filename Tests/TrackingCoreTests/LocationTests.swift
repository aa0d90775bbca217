import Testing
import TrackingCore

@Suite struct LocationTests {
    let time = FixTime(iso8601: "2026-11-01T08:00:01Z")!

    @Test func turnsNonFiniteAndNegativeIntoNil() throws {
        let location = try #require(Location(
            time: time, mode: .threeD, latitude: 52.5, longitude: 13.4,
            altitudeMSL: .nan, altitudeHAE: -12.5, course: -1, speed: .infinity, climb: -0.4,
            heading: .nan, horizontalAccuracy: -3, verticalAccuracy: .nan, speedAccuracy: -0.1,
            courseAccuracy: .infinity))
        #expect(location.altitudeMSL == nil)
        #expect(location.altitudeHAE == -12.5, "altitudes may be negative")
        #expect(location.course == nil)
        #expect(location.speed == nil)
        #expect(location.climb == -0.4, "climb may be negative")
        #expect(location.heading == nil)
        #expect(location.horizontalAccuracy == nil)
        #expect(location.verticalAccuracy == nil)
        #expect(location.speedAccuracy == nil)
        #expect(location.courseAccuracy == nil)
    }

    @Test func wrapsAnglesIntoOneTurn() throws {
        let location = try #require(Location(time: time, mode: .twoD, latitude: 0.1, longitude: 0.1, course: 360, heading: 725.5))
        #expect(location.course == 0)
        #expect(location.heading == 5.5)
    }

    @Test func refusesPositionsOutOfRange() {
        #expect(Location(time: time, mode: .twoD, latitude: 90.5, longitude: 0) == nil)
        #expect(Location(time: time, mode: .twoD, latitude: 10, longitude: -180.01) == nil)
        #expect(Location(time: time, mode: .twoD, latitude: .nan, longitude: 10) == nil)
        #expect(Location(time: time, mode: .twoD, latitude: -90, longitude: 180) != nil)
    }

    @Test func keepsZeroSpeedAndCourse() throws {
        let location = try #require(Location(time: time, mode: .twoD, latitude: 1, longitude: 1, course: 0, speed: 0))
        #expect(location.course == 0)
        #expect(location.speed == 0)
    }

    @Test func fixModeFromGPSD() {
        #expect(FixMode(gpsdMode: 0) == nil)
        #expect(FixMode(gpsdMode: 1) == nil)
        #expect(FixMode(gpsdMode: 2) == .twoD)
        #expect(FixMode(gpsdMode: 3) == .threeD)
        #expect(FixMode("3D") == .threeD)
        #expect(FixMode.twoD < FixMode.threeD)
    }

    @Test func everyReadingKeepsItsValueOrItsAbsence() throws {
        let readings: [WritableKeyPath<Location, Double?>] = [
            \.altitudeMSL, \.altitudeHAE, \.course, \.speed, \.climb, \.heading,
            \.horizontalAccuracy, \.verticalAccuracy, \.speedAccuracy, \.courseAccuracy,
        ]
        let bare = try #require(Location(time: time, mode: .threeD, latitude: 52.5, longitude: 13.4))
        for (k, reading) in readings.enumerated() {
            #expect(bare[keyPath: reading] == nil)
            var location = bare
            location[keyPath: reading] = Double(k) + 0.25
            #expect(location[keyPath: reading] == Double(k) + 0.25)
            // Each reading is its own: setting one leaves the others missing.
            for other in readings where other != reading { #expect(location[keyPath: other] == nil) }
            location[keyPath: reading] = 0
            #expect(location[keyPath: reading] == 0, "zero is a value, not a missing reading")
            location[keyPath: reading] = .nan
            #expect(location[keyPath: reading] == nil, "a NaN set reads as missing")
            #expect(location == bare)
        }
    }

    @Test func locationsWithTheSameReadingsAreEqualMissingOnesIncluded() throws {
        let a = try #require(Location(time: time, mode: .twoD, latitude: 1, longitude: 2, speed: 3))
        var b = try #require(Location(time: time, mode: .twoD, latitude: 1, longitude: 2, speed: 3))
        #expect(a == b, "missing readings are equal")
        b.course = 0
        #expect(a != b)
        b.course = nil
        b.speed = 3.000001
        #expect(a != b)
    }

    /// Every stage of the filter copies locations: they stay plain bytes, and small.
    @Test func aLocationIsPlainBytesAndSmall() {
        #expect(_isPOD(Location.self))
        #expect(MemoryLayout<Location>.size <= 240,
                "time, mode and the filter's accuracy beside it, position, ten readings of eight bytes, a 128-byte path")
    }

    /// The filter's accuracy is the reported one unless set apart from it, to the millimetre.
    @Test func theFiltersAccuracyIsTheReportedOneUnlessSetApart() throws {
        var location = try #require(Location(time: time, mode: .threeD, latitude: 1, longitude: 2, horizontalAccuracy: 6.22))
        #expect(location.filterAccuracy == 6.22 && location.filterAccuracyApart == nil, "one figure: the gate judges by it")
        location.filterAccuracy = 22.8
        #expect(location.filterAccuracy == 22.8 && location.horizontalAccuracy == 6.22 && location.filterAccuracyApart == 22.8)
        location.filterAccuracy = 1898.137
        #expect(location.filterAccuracy == 1898.137, "to the millimetre")
        location.filterAccuracy = -3
        #expect(location.filterAccuracy == 6.22, "a negative figure is none: the reported one again")
        let same = try #require(Location(time: time, mode: .threeD, latitude: 1, longitude: 2, horizontalAccuracy: 6.22))
        #expect(location == same)
        location.filterAccuracy = .nan
        #expect(location == same)
        let apart = try #require(Location(time: time, mode: .threeD, latitude: 1, longitude: 2, horizontalAccuracy: 6.22, filterAccuracy: 19))
        #expect(apart != same && apart.filterAccuracy == 19)
    }
}
