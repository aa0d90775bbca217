#if canImport(Glibc)
import Glibc
#endif

/// The system's wall clock, read as a `FixTime`. Used for log timestamps and plausibility checks;
/// never to stamp a position.
public enum SystemClock {
    @Sendable public static func now() -> FixTime {
        var ts = timespec()
        clock_gettime(CLOCK_REALTIME, &ts)
        return FixTime(nanosecondsSince1970: Int64(ts.tv_sec) * 1_000_000_000 + Int64(ts.tv_nsec))
    }
}
