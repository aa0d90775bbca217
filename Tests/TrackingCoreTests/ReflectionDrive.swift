import Foundation
import TestSupport
import TrackingCore

/// A random drive whose receiver now and then reports reflected signal: legs of straight road,
/// turns of 15-180 degrees at radii of 6-306 m (braked for only once in them, so a tight one is
/// taken faster than a driver would), and stops (never two in a row, and the vehicle rolls while
/// it brakes); the receiver's error wanders (10 s time constant, more while parked),
/// plus noise, and about once every 33 s of driving jumps 8-28 m for 2-7 s, its reported
/// accuracy grown by 0.6 of the jump. The gate rejects some of a burst and passes the rest:
/// what the deviation trigger must cover right after a corner, where `min-interval` forbids a
/// point.
///
/// The same route at every rate for a seed; the receiver's error from a generator of its own.
struct ReflectionDrive {
    var fixes: [Location] = []
    /// The true speed at each fix's time: a fix is moving when it is `stopped-speed` or more.
    var trueSpeed: [FixTime: Double] = [:]

    init(seed: UInt64, rate: Int, seconds: Int) {
        var route = SplitMix(seed: seed)
        var random = SplitMix(seed: seed &+ UInt64(rate) &* 7919)
        let dt = 1.0 / Double(rate), k = exp(-dt / 10)
        var (x, y, course, speed) = (0.0, 0.0, 30.0, 0.0)
        var (driftX, driftY) = (0.0, 0.0)
        var (legLeft, turnRate, target, stopLeft, stoppedLast) = (0.0, 0.0, 12.0, 0.0, false)
        var (burst, burstX, burstY) = (0, 0.0, 0.0)
        var time = FixTime(iso8601: "2026-11-03T07:00:00Z")!
        for _ in 0..<(seconds * rate) {
            if stopLeft > 0 {
                stopLeft -= dt
                speed = max(0, speed - 3 * dt)
                turnRate = 0
            } else {
                if legLeft <= 0 {
                    let kind = route.uniform()
                    if kind < 0.1, !stoppedLast {
                        stopLeft = 5 + 60 * route.uniform()
                        turnRate = 0
                    } else if kind < 0.45 {
                        (legLeft, turnRate, target) = (80 + 500 * route.uniform(), 0, 8 + 22 * route.uniform())
                    } else {
                        let radius = 6 + 300 * route.uniform() * route.uniform()
                        let degrees = (15 + 165 * route.uniform()) * (route.uniform() < 0.5 ? -1 : 1)
                        legLeft = abs(degrees) * .pi / 180 * radius
                        target = min(30, max(4, (radius * 2.5).squareRoot()))
                        turnRate = degrees / legLeft
                    }
                    stoppedLast = stopLeft > 0
                }
                speed += max(-3 * dt, min(1.8 * dt, target - speed))
            }
            let step = stopLeft > 0 ? speed * dt : max(0.3, speed) * dt
            course += turnRate * step
            legLeft -= stopLeft > 0 ? 0 : step
            x += step * sin(course * .pi / 180)
            y += step * cos(course * .pi / 180)
            let sigma = (speed < 0.5 ? 2.5 : 1.2) * (1 - k * k).squareRoot() * 2.3
            driftX = k * driftX + sigma * random.gaussian()
            driftY = k * driftY + sigma * random.gaussian()
            if burst == 0, speed > 0.5, random.uniform() < 0.03 * dt {
                burst = Int((2 + 5 * random.uniform()) * Double(rate))
                let size = 8 + 20 * random.uniform(), direction = 2 * .pi * random.uniform()
                (burstX, burstY) = (size * cos(direction), size * sin(direction))
            }
            let (bx, by) = burst > 0 ? (burstX, burstY) : (0, 0)
            burst = max(0, burst - 1)
            let ex = driftX + bx + random.gaussian(), ey = driftY + by + random.gaussian()
            let accuracy = (driftX * driftX + driftY * driftY).squareRoot() + (bx * bx + by * by).squareRoot() * 0.6 + 3
            let reported = (course.truncatingRemainder(dividingBy: 360) + 360).truncatingRemainder(dividingBy: 360)
            if let fix = Location(time: time, mode: .threeD, latitude: 52.45 + (y + ey) / 111_195.08,
                                  longitude: 13.38 + (x + ex) / (111_195.08 * cos(52.45 * .pi / 180)),
                                  course: reported, speed: speed, horizontalAccuracy: accuracy) {
                fixes.append(fix)
                trueSpeed[time] = speed
            }
            time = time.adding(seconds: dt)
        }
    }
}
