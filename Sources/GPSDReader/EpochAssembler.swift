import TrackingCore

/// Turns gpsd's stream of TPV and ATT reports into exactly one `Location` per fix time.
///
/// gpsd sends several TPVs per receiver epoch (one per NMEA sentence that changed something; real
/// logs show up to 19 for one fix time, some partial). The assembler holds the current epoch,
/// merges every report for the same time into it, and emits it once: when a report with a later
/// time arrives, when the epoch has been quiet for `epochQuietTime`, or on `flush()`.
/// Times in the output strictly increase: a report whose time repeats an emitted epoch or goes
/// backwards is counted and skipped. A run of epochs far off the receiver's timeline (see
/// `FixTimeline`) is skipped as a glitch, and one that holds becomes the timeline: one bad run of
/// times never stops the output.
///
/// Headings: an ATT with a time (gpsd API 12, or gpsd 3.22's garbled ATT that carries GST's time)
/// goes to the epoch of that time. gpsd 3.22's ordinary ATT carries no time: it goes to the
/// pending epoch when it arrives within `headingMaxAge` of that epoch's first report (gpsd
/// reports ATT after the TPV of the same cycle; a later ATT replaces an earlier one), otherwise
/// it waits for the next epoch that starts within `headingMaxAge` of its arrival.
/// A heading is used at most once; one that arrived too early or too late is not attached.
///
/// Error estimates (GST, the receiver's own statistics) always carry their epoch's time: one goes
/// to the epoch of that time, pending or the next to start, and its accuracy replaces gpsd's
/// `eph` there (`ErrorEstimate`). gpsd reports GST after the TPVs of its cycle, while the epoch
/// is still pending. One for an epoch already emitted is counted and dropped.
///
/// Monotonic instants are passed in, so tests drive it without sleeping.
public struct EpochAssembler: Sendable {
    /// What the assembler counted and skipped.
    public struct Counters: Sendable, Equatable {
        /// TPVs with mode 0 or 1.
        public var noFix = 0
        /// TPVs with a 2D/3D mode but no time.
        public var missingTime = 0
        /// TPVs with a 2D/3D mode but a missing or out-of-range position.
        public var invalidPosition = 0
        /// TPVs whose time equals an epoch already emitted.
        public var repeatedTime = 0
        /// TPVs whose time is earlier than the newest epoch seen.
        public var backwardsTime = 0
        /// Epochs skipped because their time was far off the receiver's timeline (a clock glitch).
        public var timeGlitches = 0
        /// Times a new timeline replaced the old one (the old one was the glitch).
        public var timelineRebases = 0
        /// Headings attached to a location.
        public var headingsAttached = 0
        /// Headings that were never attached (too old, or replaced by a newer one).
        public var headingsUnused = 0
        /// Receiver error estimates whose accuracy a location carries.
        public var errorEstimatesAttached = 0
        /// Error estimates for no epoch that was still to be emitted.
        public var errorEstimatesUnused = 0
        public init() {}
    }

    private struct Pending {
        var report: TPVReport
        var firstSeen: ContinuousClock.Instant
        var lastSeen: ContinuousClock.Instant
        var heading: Double?
        var errorEstimate: ErrorEstimate?
    }

    /// How long a heading stays eligible for attachment.
    public var headingMaxAge: Duration
    /// How long an epoch waits for more reports before it is emitted anyway.
    public var epochQuietTime: Duration
    public private(set) var counters = Counters()

    private var pending: Pending?
    private var lastEmittedTime: FixTime?
    private var heldHeading: (value: Double, time: FixTime?, arrived: ContinuousClock.Instant)?
    /// An error estimate for an epoch not begun yet.
    private var heldErrorEstimate: ErrorEstimate?
    private var timeline: FixTimeline
    private var notices: [TimelineNotice] = []

    /// A change of the receiver's timeline an operator should hear about, once per episode.
    public enum TimelineNotice: Sendable, Equatable {
        /// An epoch far off the timeline: this one and any that follow it are skipped.
        case glitchStarted(time: FixTime, expectedNear: FixTime)
        /// Epochs on the timeline again, after `skipped` were skipped.
        case glitchEnded(skipped: Int)
        /// The receiver kept to another time: it is the timeline now.
        case rebased(from: FixTime, to: FixTime)
    }

    public init(
        headingMaxAge: Duration = .seconds(1), epochQuietTime: Duration = .milliseconds(1500),
        timeline: FixTimeline = FixTimeline()
    ) {
        self.headingMaxAge = headingMaxAge
        self.epochQuietTime = epochQuietTime
        self.timeline = timeline
    }

    /// The timeline notices since the last call, oldest first.
    public mutating func takeNotices() -> [TimelineNotice] {
        defer { notices = [] }
        return notices
    }

    /// The fix time of the last emitted location.
    public var lastEmitted: FixTime? { lastEmittedTime }

    /// Adds one TPV report received at `now`; returns the locations it completes (zero or one).
    public mutating func add(_ report: TPVReport, at now: ContinuousClock.Instant) -> [Location] {
        var emitted: [Location] = []
        var newest = pending?.report.time ?? lastEmittedTime
        // Any report with a later time closes the pending epoch, fix or not.
        if let time = report.time, let pendingTime = pending?.report.time, time > pendingTime,
           let location = emitPending() {
            emitted.append(location)
        }
        guard report.mode >= 2 else {
            counters.noFix += 1
            return emitted
        }
        guard let time = report.time else {
            counters.missingTime += 1
            return emitted
        }
        if let last = lastEmittedTime, time == last {
            counters.repeatedTime += 1
            return emitted
        }
        if pending?.report.time != time {
            switch timeline.judge(time, at: now) {
            case .onTimeline:
                break
            case let .offTimeline(startsEpisode):
                counters.timeGlitches += 1
                if startsEpisode, let reference = newest {
                    notices.append(.glitchStarted(time: time, expectedNear: reference))
                }
                return emitted
            case let .rebased(from):
                counters.timelineRebases += 1
                if let location = emitPending() { emitted.append(location) }
                lastEmittedTime = nil
                newest = nil
                notices.append(.rebased(from: from, to: time))
            }
        }
        if let newest, time < newest {
            counters.backwardsTime += 1
            return emitted
        }
        if var current = pending, current.report.time == time {
            current.report = report.merged(over: current.report)
            current.lastSeen = now
            pending = current
            return emitted
        }
        guard let latitude = report.latitude, let longitude = report.longitude,
              (-90.0...90.0).contains(latitude), (-180.0...180.0).contains(longitude)
        else {
            counters.invalidPosition += 1
            return emitted
        }
        if let skipped = timeline.accept(time, at: now) { notices.append(.glitchEnded(skipped: skipped)) }
        var next = Pending(report: report, firstSeen: now, lastSeen: now, heading: nil)
        next.errorEstimate = takeHeldErrorEstimate(for: time)
        if let held = heldHeading {
            let matches = held.time.map { $0 == time } ?? (now - held.arrived <= headingMaxAge)
            if matches {
                next.heading = held.value
                heldHeading = nil
            } else if held.time.map({ $0 < time }) ?? true {
                counters.headingsUnused += 1
                heldHeading = nil
            }
        }
        pending = next
        return emitted
    }

    /// Adds a true heading (degrees) from an ATT report received at `now`; `time` is the
    /// report's own time when it carried one.
    public mutating func addHeading(_ heading: Double, time: FixTime? = nil, at now: ContinuousClock.Instant) {
        guard let heading = Location.angle(heading) else { return }
        if var current = pending {
            let belongs = time.map { $0 == current.report.time } ?? (now - current.firstSeen <= headingMaxAge)
            if belongs {
                if current.heading != nil { counters.headingsUnused += 1 }
                current.heading = heading
                pending = current
                return
            }
        }
        if let time, let newest = pending?.report.time ?? lastEmittedTime, time <= newest {
            counters.headingsUnused += 1
            return
        }
        if heldHeading != nil { counters.headingsUnused += 1 }
        heldHeading = (heading, time, now)
    }

    /// Adds the receiver's error estimate for the epoch of its time.
    public mutating func addErrorEstimate(_ estimate: ErrorEstimate) {
        if var current = pending, current.report.time == estimate.time {
            current.errorEstimate = estimate
            pending = current
            return
        }
        if let newest = pending?.report.time ?? lastEmittedTime, estimate.time <= newest {
            counters.errorEstimatesUnused += 1
            return
        }
        if heldErrorEstimate != nil { counters.errorEstimatesUnused += 1 }
        heldErrorEstimate = estimate
    }

    /// The held error estimate when it is for `time`; one for an earlier epoch is dropped.
    private mutating func takeHeldErrorEstimate(for time: FixTime) -> ErrorEstimate? {
        guard let held = heldErrorEstimate, held.time <= time else { return nil }
        heldErrorEstimate = nil
        if held.time == time { return held }
        counters.errorEstimatesUnused += 1
        return nil
    }

    /// Emits the pending epoch when no report has added to it for `epochQuietTime`.
    public mutating func flushIfQuiet(at now: ContinuousClock.Instant) -> Location? {
        guard let current = pending, now - current.lastSeen >= epochQuietTime else { return nil }
        return emitPending()
    }

    /// When the pending epoch will have been quiet long enough to flush; nil with none pending.
    public var quietDeadline: ContinuousClock.Instant? {
        pending.map { $0.lastSeen + epochQuietTime }
    }

    /// Emits the pending epoch now (on disconnect or stop).
    public mutating func flush() -> Location? {
        emitPending()
    }

    private mutating func emitPending() -> Location? {
        guard let current = pending else { return nil }
        pending = nil
        guard let time = current.report.time else { return nil }
        lastEmittedTime = time
        guard let location = current.report.location(heading: current.heading, errorEstimate: current.errorEstimate) else {
            counters.invalidPosition += 1
            return nil
        }
        if location.heading != nil { counters.headingsAttached += 1 }
        if current.errorEstimate != nil { counters.errorEstimatesAttached += 1 }
        return location
    }
}
