import TrackingCore

/// Turns per-fix rejections into one log line when a run of rejections starts and one when
/// fixes pass again, so a receiver stuck in the past logs twice, not once a second.
struct RejectionEpisodes {
    private var current: RejectionReason?
    private var count = 0

    /// Records the gate's verdict on `location`; returns a line to log, if this starts or ends an episode.
    mutating func record(_ reason: RejectionReason?, _ location: Location, configuration: FilterConfiguration, clock: ClockReading)
        -> (LogLevel, String)?
    {
        guard let reason else {
            guard let ended = current else { return nil }
            defer { current = nil; count = 0 }
            return (Self.level(ended), "fixes accepted again after \(count) rejected (\(ended))")
        }
        if reason == current {
            count += 1
            return nil
        }
        current = reason
        count = 1
        return (Self.level(reason), "rejecting fixes (\(reason)): " + Self.explain(reason, location, configuration, clock))
    }

    /// One line for fixes the gate held and then rejected, when the fixes after them came back
    /// where the receiver's velocity put the vehicle (a multipath excursion, see `QualityGate`).
    static func recalled(_ fixes: [Location]) -> (LogLevel, String)? {
        guard let first = fixes.first, let last = fixes.last else { return nil }
        return (.debug, "rejected \(fixes.count) fixes from \(first.time) to \(last.time) (outlier): they left where the receiver's velocity put the vehicle, and the fixes after them came back")
    }

    /// Rejections that mean something is wrong with the receiver or the clock are warnings;
    /// ordinary noise (poor accuracy, a lost fix, a stray jump) is debug.
    private static func level(_ reason: RejectionReason) -> LogLevel {
        switch reason {
        case .future, .tooOld, .coordinates: return .warning
        case .mode, .accuracy, .stale, .outlier: return .debug
        }
    }

    private static func explain(_ reason: RejectionReason, _ l: Location, _ c: FilterConfiguration, _ clock: ClockReading) -> String {
        switch reason {
        case .mode:
            return "\(l.mode) fix below min-mode \(c.minMode)"
        case .accuracy:
            return "accuracy \(l.filterAccuracy.map { "\(Int($0)) m" } ?? "unknown") worse than max-accuracy \(c.maxAccuracy.map { "\(Int($0)) m" } ?? "off")"
        case .stale:
            return "fix time \(l.time) is not after the last accepted fix"
        case .future:
            let minutes = Int(clock.now.seconds(to: l.time) / 60)
            return "fix time \(l.time) is \(minutes) min ahead of the synchronized system clock (\(clock.now)); is the receiver's time wrong?"
        case .tooOld:
            return "fix time \(l.time) is before \(c.earliestPlausibleTime); receivers with a GPS week-rollover bug report dates 1024 weeks back: update the receiver firmware (or set earliest-time to replay old logs)"
        case .coordinates:
            return "position \(l.latitude), \(l.longitude) is null island or out of range; the receiver has no real fix"
        case .outlier:
            return "fix at \(l.time) is off where the last accepted fix and the receiver's velocity put the vehicle "
                + "(a jump faster than max-speed \(Int(c.maxSpeed)) m/s, or more than \(Int(QualityGate.jumpLimit)) m aside: multipath); "
                + "\(c.outlierConfirmations) agreeing fixes beyond max-speed and more than \(Int(QualityGate.reflectionReach)) m aside, "
                + "or \(Int(QualityGate.maxExcursion)) s aside, are followed"
        }
    }
}
