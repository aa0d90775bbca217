import Synchronization
import TrackingCore

/// The filter chain, run on the gpsd reader's own thread.
///
/// Every fix is judged where it was read; only the kept ones (a few percent) go on, to `onKept`
/// (the daemon hands them straight to the spool's queue). Handing each fix to another thread costs
/// more CPU than reading and filtering it, so the fixes the filter drops never wake anything.
final class FilterStage: Sendable {
    private struct State {
        var chain: FilterChain
        var episodes = RejectionEpisodes()
        var lastFix: Location?
        var finished = false
        /// The kernel's synchronization flag, asked at most every `clockCheckInterval` (one
        /// adjtimex per fix would be one more system call per fix than reading it).
        var synchronized = false
        var clockCheckedAt: ContinuousClock.Instant?
        /// Under an AccuracyBased tracker: whether the receiver's accuracies space points wider than DistanceBased.
        var advice: AccuracySpacingAdvice?
    }

    static let clockCheckInterval = Duration.seconds(10)

    private let onKept: @Sendable (KeptLocation) -> Void
    private let state: Mutex<State>
    private let logger: Logger

    /// `onKept` receives the kept positions in order, on the thread that called `process`,
    /// `pause` or `finish`, under the stage's lock; it must not block (the daemon hands the
    /// position to the spool's queue). With a `tracker`, the stage says once when its mode and the
    /// receiver's accuracies cost the track (`AccuracySpacingAdvice`).
    init(configuration: FilterConfiguration, tracker: String? = nil, logger: Logger, onKept: @escaping @Sendable (KeptLocation) -> Void) {
        state = Mutex(State(chain: FilterChain(configuration: configuration), advice: tracker.map(AccuracySpacingAdvice.init)))
        self.logger = logger
        self.onKept = onKept
    }

    /// Filters one fix (on the reader thread): one lock, no copies of the counters.
    func process(_ location: Location) {
        let now = ContinuousClock.now
        let wall = SystemClock.now()
        let messages = state.withLock { s -> [(LogLevel, String)] in
            s.lastFix = location
            guard !s.finished else { return [] }
            if s.clockCheckedAt.map({ now - $0 >= Self.clockCheckInterval }) ?? true {
                s.synchronized = SystemClockStatus.read().synchronized
                s.clockCheckedAt = now
            }
            let clock = ClockReading(now: wall, synchronized: s.synchronized)
            let decision = s.chain.process(location, clock: clock)
            let recalled = RejectionEpisodes.recalled(decision.recalled)
            let message = s.episodes.record(decision.rejection, location, configuration: s.chain.configuration, clock: clock)
            // Handed on under the lock: a pause on another thread must not overtake them.
            for position in decision.kept { onKept(position) }
            let filtering = s.chain.configuration.trackerFiltering
            let advice = decision.kept.compactMap { s.advice?.observe($0.location, under: filtering) }.map { (LogLevel.warning, $0) }
            return [recalled, message].compactMap { $0 } + advice
        }
        for (level, text) in messages { logger.log(level, text) }
    }

    /// New filter settings (SIGHUP), from the next fix on.
    func reconfigure(_ configuration: FilterConfiguration) {
        state.withLock { $0.chain.configuration = configuration }
    }

    /// The tracker's filtering learned (or changed): from the next fix on.
    func setTrackerFiltering(_ filtering: TrackerFiltering) {
        state.withLock { $0.chain.configuration.trackerFiltering = filtering }
    }

    /// The tracker already stores `location` (before a restart): the spacing starts from it.
    func resume(after location: Location) {
        state.withLock { $0.chain.resume(after: location) }
    }

    var counters: FilterChain.Counters { state.withLock { $0.chain.counters } }

    /// The filter settings in force.
    var configuration: FilterConfiguration { state.withLock { $0.chain.configuration } }

    /// The newest fix from gpsd (kept or not) and the filter's counters, for status.
    var progress: (lastFix: Location?, counters: FilterChain.Counters) {
        state.withLock { ($0.lastFix, $0.chain.counters) }
    }

    /// The fixes stopped coming (receiver gone, gpsd silent or gone): what the tracker's spacing
    /// holds back is kept now, so the tracker shows the last place.
    func pause() {
        state.withLock { s in
            guard !s.finished else { return }
            for position in s.chain.pause() { onKept(position) }
        }
    }

    /// End of input: the position held back for the track's shape is kept; nothing is kept after.
    func finish() {
        state.withLock { s in
            guard !s.finished else { return }
            s.finished = true
            for position in s.chain.finish() { onKept(position) }
        }
    }
}
