// The filter alone: CPU per fix and the fixes it holds, at 1 and 10 Hz, on a synthetic drive of
// random legs (corners at any angle, curves, stops), against the quality gate alone (every
// filter pays that) and against the fewest points any track needs (`FewestPoints`).
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
    let clock = ClockReading(now: FixTime(iso8601: "2026-11-03T00:00:00Z")!, synchronized: false)
    say("filter benchmark: \(seconds) s of synthetic driving (seed \(seed)), the default filter")
    line("figure", "value", "target")
    for rate in [1, 10] {
        let drive = SyntheticDrive(seconds: seconds, rate: rate, seed: seed)
        let configuration = FilterConfiguration()
        // The reference: the quality gate alone, which every filter runs.
        var gate = QualityGate(configuration: configuration)
        var started = threadCPUSeconds()
        var passed = 0
        for fix in drive.fixes where gate.check(fix, clock: clock) == nil { passed += 1 }
        precondition(passed > 0)
        let gateSeconds = threadCPUSeconds() - started
        var chain = FilterChain(configuration: configuration)
        var kept = 0
        var mostHeld = 0
        started = threadCPUSeconds()
        for fix in drive.fixes {
            kept += chain.process(fix, clock: clock).kept.count
            mostHeld = max(mostHeld, chain.heldFixes)
        }
        kept += chain.finish().count
        let chainSeconds = threadCPUSeconds() - started
        let perFix = chainSeconds / Double(drive.fixes.count) * 1e9
        let optimum = FewestPoints.count(drive.fixes, tolerance: configuration.maxDeviation) {
            (drive.trueSpeed[$0.time] ?? 0) >= configuration.stoppedSpeed
        }
        let prefix = "filter at \(rate) Hz: "
        line(prefix + "ns of CPU per fix", fixed(perFix, 0) + " ns (" + fixed(chainSeconds / max(1e-9, gateSeconds), 1) + "x the gate alone)", "<= 2000")
        line(prefix + "most fixes held", "\(mostHeld) (" + fixed(Double(mostHeld * MemoryLayout<Location>.stride) / 1024, 1) + " KiB)", "bounded")
        line(prefix + "kept / fewest possible", fixed(Double(kept) / Double(max(1, optimum)), 2) + " (\(kept) / \(optimum))", "<= 1.2")
        line(prefix + "points per km", fixed(Double(kept) / max(0.001, drive.kilometres), 2) + " over " + fixed(drive.kilometres, 1) + " km", "not growing with the rate")
    }
}
