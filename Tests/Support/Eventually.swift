/// Waits until `condition` holds, asking every 50 ms, for `within` of wall time at most; returns
/// whether it held (asked once more at the deadline). For tests that wait on another task or
/// process: bounded, so a regression fails the test instead of holding the suite, and asleep
/// between asks, so the wait holds no thread of Swift's shared pool and burns no core.
///
/// The default of 20 s is for the suite's first seconds, when the fidelity replays and the crash
/// tests hold both cores and a 5 s budget once ran out a few turns short.
public func eventually(within: Duration = .seconds(20), _ condition: () async throws -> Bool) async rethrows -> Bool {
    let deadline = ContinuousClock.now + within
    while ContinuousClock.now < deadline {
        if try await condition() { return true }
        try? await Task.sleep(for: .milliseconds(50))
    }
    return try await condition()
}
