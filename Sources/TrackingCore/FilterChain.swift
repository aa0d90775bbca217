/// The quality gate followed by the motion triggers, with counters of everything decided.
public struct FilterChain: Sendable {
    /// What the chain did with every fix it saw.
    public struct Counters: Sendable, Equatable {
        public var fixesIn = 0
        public var kept: [KeepTrigger: Int] = [:]
        public var rejected: [RejectionReason: Int] = [:]
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
        }
    }

    /// The outcome for one fix.
    public struct Decision: Sendable, Equatable {
        /// Locations to store, in time order (a trigger may keep an earlier fix).
        public var kept: [KeptLocation]
        /// Why the fix itself was rejected, if it was.
        public var rejection: RejectionReason?
    }

    public private(set) var gate: QualityGate
    public private(set) var triggers: MotionTriggers
    public private(set) var counters = Counters()

    public init(configuration: FilterConfiguration) {
        gate = QualityGate(configuration: configuration)
        triggers = MotionTriggers(configuration: configuration)
    }

    public var configuration: FilterConfiguration {
        get { gate.configuration }
        set {
            gate.configuration = newValue
            triggers.configuration = newValue
        }
    }

    /// Runs one fix through the gate and the triggers.
    public mutating func process(_ location: Location, clock: ClockReading) -> Decision {
        counters.fixesIn += 1
        let restarts = gate.timelineRestarts
        if let reason = gate.check(location, clock: clock) {
            counters.rejected[reason, default: 0] += 1
            return Decision(kept: [], rejection: reason)
        }
        // The receiver's time was rebased: the track so far is on the old time, start anew.
        if gate.timelineRestarts != restarts { triggers = MotionTriggers(configuration: configuration) }
        let kept = triggers.process(location)
        for item in kept { counters.kept[item.trigger, default: 0] += 1 }
        return Decision(kept: kept, rejection: nil)
    }

    /// At the end of the stream: the last fix when the vehicle was moving (see `MotionTriggers.finish`).
    public mutating func finish() -> KeptLocation? {
        guard let last = triggers.finish() else { return nil }
        counters.kept[last.trigger, default: 0] += 1
        return last
    }
}
