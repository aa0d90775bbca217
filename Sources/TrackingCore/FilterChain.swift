/// The quality gate, the motion triggers, and the tracker's spacing (`TrackerSpacing`), with
/// counters of everything decided.
public struct FilterChain: Sendable {
    /// What the chain did with every fix it saw.
    public struct Counters: Sendable, Equatable {
        public var fixesIn = 0
        public var kept: [KeepTrigger: Int] = [:]
        public var rejected: [RejectionReason: Int] = [:]
        /// Points the triggers wanted that the tracker would not have stored (held back; a better
        /// allowed point is kept for them).
        public var withheld = 0
        public init() {}

        public var keptTotal: Int { kept.values.reduce(0, +) }
        public var rejectedTotal: Int { rejected.values.reduce(0, +) }

        /// `in=750 kept=41 (first=1 deviation=25 ...) rejected=3 (outlier=2 stale=1)`.
        public var summary: String {
            func list<K: CustomStringConvertible & Hashable>(_ counts: [K: Int], order: [K]) -> String {
                order.compactMap { key in counts[key].map { "\(key)=\($0)" } }.joined(separator: " ")
            }
            return "in=\(fixesIn) kept=\(keptTotal) (\(list(kept, order: KeepTrigger.allCases))) "
                + "rejected=\(rejectedTotal) (\(list(rejected, order: RejectionReason.allCases)))"
                + (withheld > 0 ? " withheld=\(withheld)" : "")
        }
    }

    /// The outcome for one fix.
    public struct Decision: Sendable, Equatable {
        /// Locations to store, in time order (a trigger may keep an earlier fix).
        public var kept: [KeptLocation]
        /// The gate's verdict on the fix, and on the fixes it held before it (see `QualityGate`).
        public var verdict: QualityGate.Verdict

        /// Why the fix itself was rejected, if it was.
        public var rejection: RejectionReason? { verdict.rejection }
        /// Fixes the gate held and now rejects as an excursion (outliers).
        public var recalled: [Location] { verdict.recalled }
    }

    public private(set) var gate: QualityGate
    public private(set) var triggers: MotionTriggers
    public private(set) var spacing: TrackerSpacing
    public private(set) var counters = Counters()

    /// Fixes the stages hold for decisions still open: with `MemoryLayout<Location>.stride`, the
    /// memory the filter holds beyond its fixed fields.
    public var heldFixes: Int { gate.heldFixes + triggers.heldFixes + spacing.heldFixes }

    public init(configuration: FilterConfiguration) {
        gate = QualityGate(configuration: configuration)
        triggers = MotionTriggers(configuration: configuration)
        spacing = TrackerSpacing(filtering: configuration.trackerFiltering)
        spacing.tolerance = configuration.maxDeviation
        spacing.stoppedSpeed = configuration.stoppedSpeed
    }

    public var configuration: FilterConfiguration {
        get { gate.configuration }
        set {
            gate.configuration = newValue
            triggers.configuration = newValue
            spacing.filtering = newValue.trackerFiltering
            spacing.tolerance = newValue.maxDeviation
            spacing.stoppedSpeed = newValue.stoppedSpeed
        }
    }

    /// The tracker already stores `location` (the last position sent before a restart): the
    /// spacing starts from it.
    public mutating func resume(after location: Location) {
        spacing.resume(after: location)
    }

    /// Runs one fix through the gate and the triggers.
    public mutating func process(_ location: Location, clock: ClockReading) -> Decision {
        counters.fixesIn += 1
        let restarts = gate.timelineRestarts
        let verdict = gate.judge(location, clock: clock)
        if let reason = verdict.rejection { counters.rejected[reason, default: 0] += 1 }
        if !verdict.recalled.isEmpty { counters.rejected[.outlier, default: 0] += verdict.recalled.count }
        // Fixes the gate held and now releases belong to the track so far, on the old time if
        // the receiver's time was rebased; then the track starts anew.
        var kept = keep(verdict.released)
        if gate.timelineRestarts != restarts { triggers = MotionTriggers(configuration: configuration) }
        if verdict.passes {
            let more = keep(location)
            kept = kept.isEmpty ? more : kept + more
        }
        return Decision(kept: kept, verdict: verdict)
    }

    /// Runs a fix the gate passed through the triggers and the tracker's spacing.
    private mutating func keep(_ location: Location) -> [KeptLocation] {
        let wished = triggers.process(location)
        let kept = spacing.process(location, kept: wished, offset: triggers.lastOffset)
        if let point = spacing.settledPoint { triggers.rebase(on: point) }
        count(kept)
        return kept
    }

    /// Runs fixes the gate held and released, in time order, as `keep` runs one.
    private mutating func keep(_ released: [Location]) -> [KeptLocation] {
        var kept: [KeptLocation] = []
        for location in released { kept += keep(location) }
        return kept
    }

    private mutating func count(_ kept: [KeptLocation]) {
        for item in kept { counters.kept[item.trigger, default: 0] += 1 }
        counters.withheld = spacing.withheld
    }

    /// At the end of the stream: the fixes the gate holds pass, then the last fix when the vehicle
    /// was moving (see `MotionTriggers.finish`), within the tracker's spacing.
    public mutating func finish() -> [KeptLocation] {
        let released = keep(gate.release())
        let kept = spacing.finish(triggers.finish())
        count(kept)
        return released + kept
    }

    /// The fixes stopped coming for now: the fixes the gate holds pass (no fix will come back soon
    /// to show them an excursion), and what the tracker's spacing holds back is decided (see
    /// `TrackerSpacing.pause`); the triggers go on as they were.
    public mutating func pause() -> [KeptLocation] {
        let released = keep(gate.release())
        let kept = spacing.pause()
        count(kept)
        return released + kept
    }
}
