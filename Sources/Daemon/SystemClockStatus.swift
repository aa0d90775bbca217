import CClock
import TrackingCore

/// The system clock and whether the kernel considers it synchronized, for the quality gate's
/// "fix from the future" check.
public enum SystemClockStatus {
    @Sendable public static func read() -> ClockReading {
        ClockReading(now: SystemClock.now(), synchronized: gpstrackd_clock_synchronized())
    }
}
