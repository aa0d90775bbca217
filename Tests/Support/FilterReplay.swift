import TrackingCore

/// Fixes replayed through the whole filter chain, as the fidelity tests and the filter benchmark
/// score it: what it kept, the chain as it ended (its counters), and the fixes the quality gate
/// let through, which any track the filter keeps is chosen from and which draw the track through
/// every fix.
public struct FilterReplay {
    public var kept: [KeptLocation] = []
    public var chain: FilterChain
    public var passed: [Location] = []

    public init(_ locations: [Location], configuration: FilterConfiguration, clock: ClockReading) {
        chain = FilterChain(configuration: configuration)
        var rejected: Set<Int> = []
        var recalled: Set<FixTime> = []
        for (index, location) in locations.enumerated() {
            let decision = chain.process(location, clock: clock)
            if decision.rejection != nil { rejected.insert(index) }
            recalled.formUnion(decision.recalled.map(\.time))
            kept += decision.kept
        }
        kept += chain.finish()
        // Every fix the gate neither rejected nor recalled passed, at once or when it was released.
        passed = locations.indices.filter { !rejected.contains($0) && !recalled.contains(locations[$0].time) }.map { locations[$0] }
    }
}
