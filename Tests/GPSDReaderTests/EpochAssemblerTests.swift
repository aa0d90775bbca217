import GPSDReader
import TestSupport
import Testing
import TrackingCore

@Suite struct EpochAssemblerTests {
    let t0 = ContinuousClock.now
    let base = FixTime(iso8601: "2026-11-01T08:00:00Z")!

    func time(_ seconds: Double) -> FixTime { base.adding(seconds: seconds) }
    func at(_ seconds: Double) -> ContinuousClock.Instant { t0.advanced(by: .milliseconds(Int64(seconds * 1000))) }
    func tpv(_ seconds: Double, mode: Int = 3, lat: Double? = 52.5, lon: Double? = 13.4, speed: Double? = nil,
             eph: Double? = nil, epv: Double? = nil, alt: Double? = nil) -> TPVReport {
        TPVReport(mode: mode, time: time(seconds), latitude: lat, longitude: lon, altitudeMSL: alt, speed: speed,
                  eph: eph, epv: epv, device: "/dev/ttyACM0")
    }

    @Test func mergesPartialReportsOfOneEpochIntoOneLocation() throws {
        var assembler = EpochAssembler()
        #expect(assembler.add(tpv(1, mode: 2), at: at(0)).isEmpty)
        #expect(assembler.add(tpv(1, mode: 3, speed: 4.5), at: at(0.01)).isEmpty)
        #expect(assembler.add(tpv(1, mode: 3, eph: 7, epv: 11, alt: 34), at: at(0.02)).isEmpty)
        let emitted = assembler.add(tpv(2, mode: 3), at: at(1))
        let location = try #require(emitted.first)
        #expect(emitted.count == 1)
        #expect(location.time == time(1))
        #expect(location.mode == .threeD)
        #expect(location.speed == 4.5, "kept from an earlier partial report")
        #expect(location.horizontalAccuracy == 7)
        #expect(location.verticalAccuracy == 11)
        #expect(location.altitudeMSL == 34)
    }

    @Test func neverEmitsAFixTimeTwice() {
        var assembler = EpochAssembler()
        _ = assembler.add(tpv(1), at: at(0))
        #expect(assembler.flush()?.time == time(1))
        #expect(assembler.add(tpv(1, speed: 3), at: at(0.2)).isEmpty)
        #expect(assembler.flush() == nil)
        #expect(assembler.counters.repeatedTime == 1)
    }

    @Test func dropsReportsWhoseTimeGoesBackwards() {
        var assembler = EpochAssembler()
        _ = assembler.add(tpv(5), at: at(0))
        #expect(assembler.add(tpv(4), at: at(0.1)).isEmpty)
        #expect(assembler.add(tpv(3), at: at(0.2)).isEmpty)
        let emitted = assembler.add(tpv(6), at: at(1))
        #expect(emitted.map(\.time) == [time(5)])
        #expect(assembler.counters.backwardsTime == 2)
    }

    @Test func countsNoFixAndMissingTimeAndBadPositions() {
        var assembler = EpochAssembler()
        _ = assembler.add(TPVReport(mode: 1, time: time(1)), at: at(0))
        _ = assembler.add(TPVReport(mode: 0), at: at(0))
        _ = assembler.add(TPVReport(mode: 3, latitude: 1, longitude: 1), at: at(0))
        _ = assembler.add(tpv(2, lat: 95), at: at(0))
        _ = assembler.add(tpv(3, lat: nil), at: at(0))
        #expect(assembler.flush() == nil)
        #expect(assembler.counters.noFix == 2)
        #expect(assembler.counters.missingTime == 1)
        #expect(assembler.counters.invalidPosition == 2)
    }

    @Test func noFixReportWithLaterTimeClosesTheEpoch() {
        var assembler = EpochAssembler()
        _ = assembler.add(tpv(1), at: at(0))
        let emitted = assembler.add(TPVReport(mode: 1, time: time(2)), at: at(1))
        #expect(emitted.map(\.time) == [time(1)])
    }

    @Test func emitsAQuietEpochAfterTheQuietTime() {
        var assembler = EpochAssembler(epochQuietTime: .milliseconds(1500))
        _ = assembler.add(tpv(1), at: at(0))
        _ = assembler.add(tpv(1), at: at(0.5))
        #expect(assembler.flushIfQuiet(at: at(1.9)) == nil)
        #expect(assembler.flushIfQuiet(at: at(2.0))?.time == time(1))
        #expect(assembler.flushIfQuiet(at: at(9)) == nil)
    }

    @Test func attachesAHeadingThatFollowsItsEpoch() {
        var assembler = EpochAssembler()
        _ = assembler.add(tpv(1), at: at(0))
        assembler.addHeading(274.07, at: at(0.05))
        let first = assembler.add(tpv(2), at: at(1))
        assembler.addHeading(274.04, at: at(1.05))
        let second = assembler.add(tpv(3), at: at(2))
        #expect(first.first?.heading == 274.07)
        #expect(second.first?.heading == 274.04)
        #expect(assembler.flush()?.heading == nil)
        #expect(assembler.counters.headingsAttached == 2)
    }

    @Test func attachesAHeadingThatArrivedJustBeforeTheFirstEpoch() {
        var assembler = EpochAssembler()
        assembler.addHeading(90, at: at(0))
        _ = assembler.add(tpv(1), at: at(0.4))
        #expect(assembler.flush()?.heading == 90)
    }

    @Test func ignoresAHeadingOlderThanTheMaximumAge() {
        var assembler = EpochAssembler(headingMaxAge: .seconds(1))
        assembler.addHeading(90, at: at(0))
        _ = assembler.add(tpv(1), at: at(1.5))
        #expect(assembler.flush()?.heading == nil)
        #expect(assembler.counters.headingsUnused == 1)
    }

    @Test func usesAHeadingOnlyOnce() {
        var assembler = EpochAssembler()
        _ = assembler.add(tpv(1), at: at(0))
        assembler.addHeading(45, at: at(0.1))
        _ = assembler.add(tpv(2), at: at(0.5))
        _ = assembler.add(tpv(3), at: at(0.9))
        let locations = [assembler.flush()]
        #expect(locations.allSatisfy { $0?.heading == nil }, "epoch 3 must not reuse epoch 1's heading")
    }

    @Test func attachesATimedHeadingToItsOwnEpoch() {
        var assembler = EpochAssembler()
        _ = assembler.add(tpv(1), at: at(0))
        // Arrives before its TPV, with its own time: waits for epoch 2.
        assembler.addHeading(120, time: time(2), at: at(0.9))
        let first = assembler.add(tpv(2), at: at(1))
        #expect(first.first?.heading == nil)
        #expect(assembler.flush()?.heading == 120)
    }

    @Test func dropsATimedHeadingForAnEpochAlreadyGone() {
        var assembler = EpochAssembler()
        _ = assembler.add(tpv(1), at: at(0))
        _ = assembler.add(tpv(2), at: at(1))
        assembler.addHeading(10, time: time(1), at: at(1.1))
        #expect(assembler.flush()?.heading == nil)
        #expect(assembler.counters.headingsUnused == 1)
    }

    @Test func outputTimesStrictlyIncreaseOnRandomInput() {
        var generator = SplitMix(seed: 42)
        var assembler = EpochAssembler()
        var out: [Location] = []
        for step in 0..<5000 {
            let seconds = Double(step / 3) + Double(generator.next() % 9) - 6
            let mode = Int(generator.next() % 4)
            out += assembler.add(tpv(seconds, mode: mode, lat: generator.next() % 10 == 0 ? .nan : 52), at: at(Double(step) * 0.01))
            if generator.next() % 7 == 0 { assembler.addHeading(Double(generator.next() % 720) - 360, at: at(Double(step) * 0.01)) }
        }
        if let last = assembler.flush() { out.append(last) }
        #expect(out.count > 500)
        for (a, b) in zip(out, out.dropFirst()) { #expect(a.time < b.time) }
        for location in out {
            if let heading = location.heading { #expect(heading >= 0 && heading < 360) }
        }
    }
}
