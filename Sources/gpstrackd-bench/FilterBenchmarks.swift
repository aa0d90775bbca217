// The filter alone: CPU per fix and the fixes it holds, at 1 and 10 Hz, on a synthetic drive of
// random legs (corners at any angle, curves, stops), against the quality gate alone (every
// filter pays that) and against the fewest points any track needs (`FewestPoints`); then CPU
// and fixes held under each tracker rule, as the daemon runs against a tracker.
import Glibc
import TestSupport
import TrackingCore

/// A random drive: legs of straight road, turns of 15-175 degrees at radii of 10-400 m, and stops;
/// a receiver's error that wanders (10 s time constant) plus noise, reported at `rate` Hz.
struct SyntheticDrive {
    var fixes: [Location] = []
    /// The true speed of each fix, for what counts as moving.
    var trueSpeed: [FixTime: Double] = [:]
    var kilometres = 0.0

    init(seconds: Int, rate: Int, seed: UInt64) {
        // The road from one generator, the receiver's error from another: the same route at every rate.
        var route = SplitMix(seed: seed)
        var random = SplitMix(seed: seed &+ UInt64(rate) &* 7919)
        let plane = (latitude: 52.45, longitude: 13.38)
        var (x, y, course, speed) = (0.0, 0.0, 30.0, 0.0)
        var (driftX, driftY) = (0.0, 0.0)
        let dt = 1.0 / Double(rate)
        let k = exp(-dt / 10)
        var time = FixTime(iso8601: "2026-11-03T07:00:00Z")!
        var legLeft = 0.0, turnRate = 0.0, target = 12.0, stopLeft = 0.0
        for _ in 0..<(seconds * rate) {
            if stopLeft > 0 {
                stopLeft -= dt
                speed = max(0, speed - 3 * dt)
            } else {
                if legLeft <= 0 {
                    let kind = route.uniform()
                    if kind < 0.1 {
                        stopLeft = 5 + 60 * route.uniform()
                        turnRate = 0
                    } else if kind < 0.55 {
                        legLeft = 80 + 700 * route.uniform()
                        turnRate = 0
                        target = 8 + 22 * route.uniform()
                    } else {
                        let radius = 10 + 390 * route.uniform() * route.uniform()
                        let degrees = (15 + 160 * route.uniform()) * (route.uniform() < 0.5 ? -1 : 1)
                        legLeft = abs(degrees) * .pi / 180 * radius
                        target = min(30, max(4, (radius * 2.5).squareRoot()))
                        turnRate = degrees / legLeft
                    }
                }
                speed += max(-3 * dt, min(2 * dt, target - speed))
                let step = max(0.3, speed) * dt
                course += turnRate * step
                legLeft -= step
                x += step * sin(course * .pi / 180)
                y += step * cos(course * .pi / 180)
                kilometres += step / 1000
            }
            let sigma = (speed < 0.5 ? 2.5 : 1.2) * (1 - k * k).squareRoot() * 2.3
            driftX = k * driftX + sigma * random.gaussian()
            driftY = k * driftY + sigma * random.gaussian()
            let ex = driftX + random.gaussian(), ey = driftY + random.gaussian()
            let latitude = plane.latitude + (y + ey) / 111_195.08
            let longitude = plane.longitude + (x + ex) / (111_195.08 * cos(plane.latitude * .pi / 180))
            let accuracy = (driftX * driftX + driftY * driftY).squareRoot() + 3
            let reportedCourse = (course.truncatingRemainder(dividingBy: 360) + 360).truncatingRemainder(dividingBy: 360)
            if let fix = Location(time: time, mode: .threeD, latitude: latitude, longitude: longitude, course: reportedCourse,
                                  speed: speed, horizontalAccuracy: accuracy) {
                fixes.append(fix)
                trueSpeed[time] = speed
            }
            time = time.adding(seconds: dt)
        }
    }
}

/// CPU seconds of the calling thread.
func threadCPUSeconds() -> Double {
    var now = timespec()
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &now)
    return Double(now.tv_sec) + Double(now.tv_nsec) / 1e9
}

func benchmarkFilter(seconds: Int, seed: UInt64) {
    say("filter benchmark: \(seconds) s of synthetic driving (seed \(seed)), the default filter, then under each tracker rule")
    line("figure", "value", "target")
    for rate in [1, 10] {
        let drive = SyntheticDrive(seconds: seconds, rate: rate, seed: seed)
        let configuration = FilterConfiguration()
        let gateSeconds = gateCPUSeconds(drive, configuration)
        let plain = FilterRun(drive, configuration)
        let optimum = FewestPoints.count(drive.fixes, tolerance: configuration.maxDeviation) {
            (drive.trueSpeed[$0.time] ?? 0) >= configuration.stoppedSpeed
        }
        let prefix = "filter at \(rate) Hz: "
        line(prefix + "ns of CPU per fix", plain.cpu(of: drive, against: gateSeconds), "<= 2000")
        line(prefix + "most fixes held", plain.held, "bounded")
        line(prefix + "kept / fewest possible", fixed(Double(plain.kept) / Double(max(1, optimum)), 2) + " (\(plain.kept) / \(optimum))", "<= 1.2")
        line(prefix + "points per km", fixed(Double(plain.kept) / max(0.001, drive.kilometres), 2) + " over " + fixed(drive.kilometres, 1) + " km", "not growing with the rate")
        // Against a tracker the filter also weighs the points its rule lets it store
        // (`TrackerSpacing`): what the daemon pays there.
        for filtering in [TrackerFiltering.timeBased, .distanceBased, .accuracyBased] {
            var ruled = configuration
            ruled.trackerFiltering = filtering
            let run = FilterRun(drive, ruled)
            let ruledPrefix = "filter at \(rate) Hz, \(filtering.rawValue): "
            line(ruledPrefix + "ns of CPU per fix", run.cpu(of: drive, against: gateSeconds), "<= 2000")
            line(ruledPrefix + "most fixes held", run.held, "bounded")
        }
    }
}

/// CPU seconds of the quality gate alone over the drive: the reference every filter pays.
private func gateCPUSeconds(_ drive: SyntheticDrive, _ configuration: FilterConfiguration) -> Double {
    let clock = FilterRun.clock
    var gate = QualityGate(configuration: configuration)
    let started = threadCPUSeconds()
    var passed = 0
    for fix in drive.fixes {
        let verdict = gate.judge(fix, clock: clock)
        passed += verdict.released.count + (verdict.passes ? 1 : 0)
    }
    precondition(passed > 0)
    return threadCPUSeconds() - started
}

/// One pass of the whole filter chain over a drive.
private struct FilterRun {
    static let clock = ClockReading(now: FixTime(iso8601: "2026-11-03T00:00:00Z")!, synchronized: false)
    var seconds = 0.0
    var kept = 0
    var mostHeld = 0

    init(_ drive: SyntheticDrive, _ configuration: FilterConfiguration) {
        var chain = FilterChain(configuration: configuration)
        let started = threadCPUSeconds()
        for fix in drive.fixes {
            kept += chain.process(fix, clock: Self.clock).kept.count
            mostHeld = max(mostHeld, chain.heldFixes)
        }
        kept += chain.finish().count
        seconds = threadCPUSeconds() - started
    }

    func cpu(of drive: SyntheticDrive, against gateSeconds: Double) -> String {
        fixed(seconds / Double(drive.fixes.count) * 1e9, 0) + " ns (" + fixed(seconds / max(1e-9, gateSeconds), 1) + "x the gate alone)"
    }

    var held: String {
        "\(mostHeld) (" + fixed(Double(mostHeld * MemoryLayout<Location>.stride) / 1024, 1) + " KiB)"
    }
}
