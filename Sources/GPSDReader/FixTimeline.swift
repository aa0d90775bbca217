import TrackingCore

/// Holds the receiver's clock to the box's monotonic clock, so that one bad run of fix times
/// cannot stop tracking.
///
/// A receiver can report a run of epochs dated far from the truth (a cold start, a firmware bug,
/// a week-number rollover) and then return to the right time. Fix times must increase, so a run
/// dated tomorrow would otherwise make every later fix look like it goes backwards, for good — and
/// with the system clock unsynchronized nothing else can tell which time is right.
///
/// Between two epochs the fix time moves as far as the monotonic clock does (a replay may move it
/// faster, never by minutes in a step). A new epoch whose time is more than `maxJump` away from
/// where the last accepted one predicts is off the timeline: it is skipped and starts (or extends)
/// a candidate timeline. When fixes on the old timeline come again, the candidate was a glitch.
/// When the candidate holds on its own for `confirmation` of its own fix time and at least
/// `minimumRun` epochs, it is the receiver's time from then on: the timeline is rebased. Fix time,
/// not the box's clock, so that a replay faster than real time (or a receiver swapped behind gpsd)
/// is followed as soon as it has shown as much of its time as a live receiver would. Small disorder (a repeated or
/// slightly older time) is not the timeline's business; the assembler skips it.
///
/// Monotonic instants are passed in, so tests drive it without sleeping.
public struct FixTimeline: Sendable {
    /// What a new epoch's time is, against the timeline.
    public enum Verdict: Sendable, Equatable {
        /// Where the last accepted epoch predicts it, within `maxJump`.
        case onTimeline
        /// Off the timeline: skip it. `startsEpisode` for the first of a run.
        case offTimeline(startsEpisode: Bool)
        /// A candidate timeline held for `confirmation`: it replaces the old one, from this epoch on.
        case rebased(from: FixTime)
    }

    public var maxJump: Duration
    public var confirmation: Duration
    public var minimumRun: Int

    private var anchor: (time: FixTime, at: ContinuousClock.Instant)?
    private var candidate: (first: FixTime, last: FixTime, lastAt: ContinuousClock.Instant, count: Int)?

    public init(maxJump: Duration = .seconds(300), confirmation: Duration = .seconds(30), minimumRun: Int = 10) {
        self.maxJump = maxJump
        self.confirmation = confirmation
        self.minimumRun = minimumRun
    }

    /// Epochs skipped in the episode under way (0 when none is).
    public var episodeLength: Int { candidate?.count ?? 0 }

    /// Judges the time of an epoch about to start at `now`. Call `accept` when it does start.
    public mutating func judge(_ time: FixTime, at now: ContinuousClock.Instant) -> Verdict {
        guard let anchor else { return .onTimeline }
        if Self.follows(time, from: anchor.time, at: anchor.at, now: now, maxJump: maxJump) { return .onTimeline }
        guard var run = candidate, time > run.last,
              Self.follows(time, from: run.last, at: run.lastAt, now: now, maxJump: maxJump)
        else {
            let starts = candidate == nil
            candidate = (time, time, now, 1)
            return .offTimeline(startsEpisode: starts)
        }
        run.last = time
        run.lastAt = now
        run.count += 1
        if run.count >= minimumRun, run.first.seconds(to: time) >= confirmation.seconds {
            candidate = nil
            self.anchor = (time, now)
            return .rebased(from: anchor.time)
        }
        candidate = run
        return .offTimeline(startsEpisode: false)
    }

    /// An epoch started at `now` with `time`: the timeline goes on from it. Returns how many epochs
    /// the episode it ends skipped, when it ends one.
    @discardableResult
    public mutating func accept(_ time: FixTime, at now: ContinuousClock.Instant) -> Int? {
        anchor = (time, now)
        defer { candidate = nil }
        return candidate?.count
    }

    /// Whether `time` is where a timeline through (`from`, `at`) predicts it at `now`, within `maxJump`.
    private static func follows(
        _ time: FixTime, from: FixTime, at: ContinuousClock.Instant, now: ContinuousClock.Instant, maxJump: Duration
    ) -> Bool {
        let expected = from.adding(seconds: (now - at).seconds)
        return abs(expected.seconds(to: time)) <= maxJump.seconds
    }
}
