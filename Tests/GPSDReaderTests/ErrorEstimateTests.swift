import GPSDReader
import TestSupport
import Testing
import TrackingCore

/// The receiver's own error statistics (gpsd's GST) as the accuracy of the epoch of their time.
@Suite struct ErrorEstimateTests {
    let t0 = ContinuousClock.now
    let base = FixTime(iso8601: "2026-11-01T08:00:00Z")!

    func time(_ seconds: Double) -> FixTime { base.adding(seconds: seconds) }
    func at(_ seconds: Double) -> ContinuousClock.Instant { t0.advanced(by: .milliseconds(Int64(seconds * 1000))) }
    func tpv(_ seconds: Double, eph: Double? = 19) -> TPVReport {
        TPVReport(mode: 3, time: time(seconds), latitude: 52.5, longitude: 13.4, eph: eph, device: "/dev/ttyUSB0")
    }
    func estimate(_ seconds: Double, _ latitude: Double, _ longitude: Double) -> ErrorEstimate {
        ErrorEstimate(time: time(seconds), latitudeError: latitude, longitudeError: longitude)!
    }

    @Test func accuracyIsTwiceTheDistanceRootMeanSquare() {
        #expect(estimate(0, 3, 4).horizontalAccuracy == 10)
        #expect(estimate(0, 2, 2).horizontalAccuracy == 5.66, "to the centimetre")
        #expect(estimate(0, 0.012, 0.009).horizontalAccuracy == 0.03, "an RTK receiver's centimetres stay centimetres")
    }

    @Test func statisticsThatSayNothingAreNoEstimate() {
        #expect(ErrorEstimate(time: time(0), latitudeError: 0, longitudeError: 0) == nil, "a receiver filling GST with zeros")
        #expect(ErrorEstimate(time: time(0), latitudeError: .nan, longitudeError: 2) == nil, "an empty field")
        #expect(ErrorEstimate(time: time(0), latitudeError: -1, longitudeError: 2) == nil)
        #expect(ErrorEstimate(time: time(0), latitudeError: .infinity, longitudeError: 2) == nil)
        #expect(ErrorEstimate(time: nil, latitudeError: 2, longitudeError: 2) == nil, "no time: no epoch to give it to")
    }

    /// gpsd's order: the TPVs of an epoch, then its GST, then the next epoch.
    @Test func theEstimateGivesTheAccuracyOfItsOwnEpoch() throws {
        var assembler = EpochAssembler()
        _ = assembler.add(tpv(1), at: at(0))
        assembler.addErrorEstimate(estimate(1, 3, 4))
        let emitted = assembler.add(tpv(2), at: at(1))
        let first = try #require(emitted.first)
        #expect(first.time == time(1) && first.horizontalAccuracy == 10, "the receiver's 10 m, not gpsd's 19")
        #expect(first.filterAccuracy == 19, "the quality gate still judges by gpsd's figure")
        let flushed = assembler.flush()
        let second = try #require(flushed)
        #expect(second.horizontalAccuracy == 19, "no estimate for this epoch: gpsd's figure")
        #expect(second.filterAccuracy == 19)
        #expect(assembler.counters.errorEstimatesAttached == 1 && assembler.counters.errorEstimatesUnused == 0)
    }

    /// A receiver that sends GST before the fix sentences of the same epoch.
    @Test func anEstimateAheadOfItsEpochWaitsForIt() throws {
        var assembler = EpochAssembler()
        _ = assembler.add(tpv(1), at: at(0))
        assembler.addErrorEstimate(estimate(2, 1.5, 2))
        #expect(assembler.add(tpv(2, eph: 22), at: at(1)).first?.horizontalAccuracy == 19)
        let flushed = assembler.flush()
        let location = try #require(flushed)
        #expect(location.time == time(2) && location.horizontalAccuracy == 5)
        #expect(assembler.counters.errorEstimatesAttached == 1)
    }

    @Test func anEstimateForNoEpochStillToComeIsCountedAndDropped() throws {
        var assembler = EpochAssembler()
        _ = assembler.add(tpv(1), at: at(0))
        _ = assembler.add(tpv(2), at: at(1))
        assembler.addErrorEstimate(estimate(1, 3, 4))
        assembler.addErrorEstimate(estimate(3, 3, 4))
        #expect(assembler.add(tpv(4), at: at(3)).first?.horizontalAccuracy == 19, "time 2 had none")
        let flushed = assembler.flush()
        let location = try #require(flushed)
        #expect(location.time == time(4) && location.horizontalAccuracy == 19, "epoch 3 never came: its estimate is not epoch 4's")
        #expect(assembler.counters.errorEstimatesUnused == 2 && assembler.counters.errorEstimatesAttached == 0)
    }
}
