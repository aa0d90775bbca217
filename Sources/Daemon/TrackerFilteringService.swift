import AWSLocation
import Synchronization
import TrackingCore
import Uploader

/// Knows the tracker's `PositionFiltering` and tells the filter and the uploader.
///
/// With `tracker-filtering auto` it asks the tracker (DescribeTracker) at start, on SIGHUP and
/// about every hour. A Cognito guest role usually may not (`geo:DescribeTracker`): access denied
/// means "assume TimeBased", the service's default, said once with the permission to add. A
/// failed request never holds uploads back: the mode last learned (kept in the state directory)
/// or TimeBased stands, and the tracker is asked again later. Under TimeBased the operator hears
/// once what it costs and the command that changes it. It is the one writer of `tracker.json`
/// (`TrackerMemory`), kept in hand: while it runs it remembers the newest position the tracker
/// stored (`lastStored`), for the spacing after a restart.
final class TrackerFilteringService: Service {
    let name = "tracker-filtering"
    /// Where the mode in force came from.
    enum Source: String, Sendable {
        case configured
        case describeTracker = "DescribeTracker"
        case assumed = "assumed (the service's default)"
        /// Not answered yet and nothing remembered: the filter assumes TimeBased, but positions
        /// already queued are not withheld on a guess.
        case unanswered = "assumed until the tracker answers"
        case lastKnown = "last known"
    }

    struct Current: Sendable, Equatable {
        var filtering: TrackerFiltering
        var source: Source
    }

    private let current: Mutex<Current>
    private let warnedTimeBased = Atomic<Bool>(false)
    private let asking = Mutex<Task<Void, Never>?>(nil)
    private let answered = Atomic<Bool>(false)
    private let memory: Mutex<TrackerMemory>
    private let tracker: String
    private let directory: String
    private let logger: Logger
    private let client: TrackerClient
    private let configured: TrackerFiltering?
    private let apply: @Sendable (TrackerFiltering) -> Void
    private let lastStored: @Sendable () -> Location?
    private let stopping = Atomic<Bool>(false)
    private let started = Atomic<Bool>(false)
    private let wakeup = Wakeup()
    /// How often the tracker is asked again (`recheckInterval`), and after a failure
    /// (`retryPolicy`); shorter in tests.
    private let recheck: Duration
    private let retry: RetryPolicy
    private let wallClock: @Sendable () -> FixTime
    private let asked = Mutex(Asked())

    /// When the tracker last answered DescribeTracker, and, while asking it fails, why: the mode
    /// in force may be hours old, and `status` says so.
    struct Asked: Sendable, Equatable {
        var answered: FixTime?
        var failure: String?
    }

    /// How often the tracker's last stored position is remembered while running.
    static let rememberInterval = Duration.seconds(5)

    /// The mode in force before the tracker is asked: the configured one, the one remembered,
    /// or TimeBased until it answers.
    static func initial(configured: TrackerFiltering?, memory: TrackerMemory) -> Current {
        if let configured { return Current(filtering: configured, source: .configured) }
        if let known = memory.knownFiltering { return Current(filtering: known, source: .lastKnown) }
        return Current(filtering: .timeBased, source: .unanswered)
    }

    /// `apply` receives each mode learned (the filter and the uploader follow it); `lastStored`
    /// is the newest position the tracker stored, as the uploader knows it.
    init(configured: TrackerFiltering?, memory: TrackerMemory, tracker: String, directory: String, logger: Logger,
         client: TrackerClient, apply: @escaping @Sendable (TrackerFiltering) -> Void = { _ in },
         lastStored: @escaping @Sendable () -> Location? = { nil }, recheck: Duration = recheckInterval,
         retry: RetryPolicy = retryPolicy, wallClock: @escaping @Sendable () -> FixTime = SystemClock.now) {
        current = Mutex(Self.initial(configured: configured, memory: memory))
        self.wallClock = wallClock
        self.recheck = recheck
        self.retry = retry
        self.memory = Mutex(memory)
        self.tracker = tracker
        self.directory = directory
        self.logger = logger
        self.client = client
        self.configured = configured
        self.apply = apply
        self.lastStored = lastStored
    }

    /// Asks (or applies the configured mode), then remembers the tracker's last stored position
    /// every `rememberInterval` until shut down, and once more then.
    func run() async {
        start()
        while !stopping.load(ordering: .acquiring) {
            await wakeup.wait(upTo: Self.rememberInterval)
            rememberLastStored()
        }
        asking.withLock { $0?.cancel() }
        rememberLastStored()
    }

    /// Asks the tracker (or applies the configured mode) once; the daemon calls it before the
    /// services run, so that the question goes out before the first fix is read.
    func start() {
        guard !started.exchange(true, ordering: .acquiringAndReleasing) else { return }
        reconsider(configured: configured)
    }

    func shutDownGracefully() {
        stopping.store(true, ordering: .releasing)
        wakeup.signal()
    }

    private func rememberLastStored() {
        guard let stored = lastStored(), let problem = remember(stored: stored) else { return }
        logger.warning("cannot remember the tracker's last stored position: \(problem)")
    }

    var snapshot: Current { current.withLock { $0 } }

    /// When the tracker last answered, and why asking it fails now (`Asked`).
    var lastAsked: Asked { asked.withLock { $0 } }

    /// Whether the mode in force is known well enough to hold queued positions back for it.
    var isKnown: Bool { snapshot.source != .unanswered }

    /// Sets the mode and says what it means; returns it for `apply`.
    @discardableResult
    func set(_ filtering: TrackerFiltering, source: Source) -> TrackerFiltering {
        current.withLock { $0 = Current(filtering: filtering, source: source) }
        warnIfTimeBased()
        return filtering
    }

    /// The newest position the tracker stored, remembered for the spacing after a restart; the
    /// file is written only when it changed. Returns what went wrong writing it.
    func remember(stored location: Location) -> String? {
        guard memory.withLock({ $0.lastStoredLocation?.time }) != location.time else { return nil }
        return remember { $0.remember(location) }
    }

    /// Changes the memory and writes it.
    private func remember(_ change: (inout TrackerMemory) -> Void) -> String? {
        let updated = memory.withLock { m -> TrackerMemory in
            change(&m)
            return m
        }
        return updated.save(to: directory)
    }

    /// Once per run: what TimeBased costs, and the command that changes it.
    func warnIfTimeBased() {
        guard snapshot.filtering == .timeBased, !warnedTimeBased.exchange(true, ordering: .relaxed) else { return }
        logger.warning("tracker '\(tracker)' stores at most one position per 30 s (PositionFiltering TimeBased, \(snapshot.source.rawValue)): "
            + "gpstrackd keeps the best point it may every 30 s, and corners between them are cut. To store the track as kept: "
            + "aws location update-tracker --tracker-name \(tracker) --position-filtering AccuracyBased"
            + (snapshot.source == .configured ? ", and set tracker-filtering to auto or the new mode"
                : " (gpstrackd asks the tracker again within the hour, or at once on SIGHUP)"))
    }

    /// Applies `configured` (at start, on a reload), or with nil (`auto`) asks the tracker in the
    /// background, replacing a question still under way.
    func reconsider(configured: TrackerFiltering?) {
        if let configured {
            asking.withLock { $0?.cancel() }
            apply(set(configured, source: .configured))
            answered.store(true, ordering: .releasing)
            return
        }
        let task = Task { await learn() }
        asking.withLock { previous in
            previous?.cancel()
            previous = task
        }
    }

    /// Waits until the tracker answered (or refused), at most `limit`: the first positions then
    /// go by the tracker's real mode, while a slow or failing request delays nothing for long.
    func waitForAnswer(upTo limit: Duration) async {
        let deadline = ContinuousClock.now + limit
        while !answered.load(ordering: .acquiring), ContinuousClock.now < deadline {
            try? await Task.sleep(for: .milliseconds(20))
        }
    }

    /// Asks the tracker until it answers or refuses, and again about every `recheck`: an operator
    /// who follows the TimeBased warning's command has the track kept by the new mode within the
    /// hour on every box, without reaching any of them, and a tracker changed to a stricter mode
    /// has its rule obeyed before many positions are sent that it would drop. `apply` receives
    /// each mode learned; a mode that changed is said once, the same answer again not at all.
    private func learn() async {
        var failures = 0
        var saidFailure = false, saidDenied = false, answeredOnce = false
        while !Task.isCancelled {
            let wait: Duration
            do throws(TrackerError) {
                let filtering = try await client.describeTracker(tracker)
                learned(filtering, firstAnswer: !answeredOnce)
                (failures, saidFailure, answeredOnce, wait) = (0, false, true, recheckWithJitter())
            } catch {
                asked.withLock { $0.failure = error.description }
                if case let .accessDenied(_, _, message) = error {
                    if !saidDenied {
                        logger.warning("cannot read tracker '\(tracker)''s PositionFiltering (access denied: \(message)); assuming TimeBased, the "
                            + "service's default. Allow geo:DescribeTracker on arn:aws:geo:<region>:<account>:tracker/\(tracker), "
                            + "or set tracker-filtering to the tracker's mode")
                        saidDenied = true
                    }
                    // A mode the tracker told before stands; with none, the service's default.
                    if snapshot.source != .describeTracker { apply(set(.timeBased, source: .assumed)) }
                    answered.store(true, ordering: .releasing)
                    (failures, wait) = (0, recheckWithJitter())
                } else {
                    if !saidFailure {
                        let now = snapshot
                        logger.warning("cannot ask tracker '\(tracker)' for its PositionFiltering (\(error)); keeping \(now.filtering) "
                            + "(\(now.source.rawValue)) and asking again later")
                        saidFailure = true
                        warnIfTimeBased()
                    }
                    failures += 1
                    let retryAfter: Double? = if case let .throttled(after, _) = error { after } else { nil }
                    wait = .seconds(retry.delay(failures: failures, retryAfter: retryAfter, unit: .random(in: 0..<1)))
                }
            }
            try? await Task.sleep(for: wait)
        }
    }

    /// An answer: said when it is the first since start or a reload, or a change; applied and
    /// remembered when it is news.
    private func learned(_ filtering: TrackerFiltering, firstAnswer: Bool) {
        let before = snapshot
        asked.withLock { $0 = Asked(answered: wallClock(), failure: nil) }
        answered.store(true, ordering: .releasing)
        let changed = before.source == .describeTracker && before.filtering != filtering
        if changed {
            logger.notice("tracker '\(tracker)' now filters positions: \(filtering) (was \(before.filtering))")
        } else if firstAnswer {
            logger.info("tracker '\(tracker)' filters positions: \(filtering)")
        }
        guard before.source != .describeTracker || changed else { return }
        apply(set(filtering, source: .describeTracker))
        if let problem = remember({ $0.filtering = filtering.rawValue }) {
            logger.warning("cannot remember the tracker's filtering: \(problem)")
        }
    }

    /// Between three quarters of `recheck` and all of it, at random: boxes of a fleet started
    /// together ask apart, and a change is followed within `recheck`.
    private func recheckWithJitter() -> Duration {
        recheck * Double.random(in: 0.75...1)
    }

    /// The wait after a failed question: at random up to 30 s, doubling to 10 minutes, and never
    /// less than a throttled answer's Retry-After. At random, because a fleet's boxes started
    /// together (or back after an outage) would otherwise ask together again, past
    /// DescribeTracker's quota of 10 a second for the account, and be throttled together again.
    static let retryPolicy = RetryPolicy(base: 30, cap: 600)
    /// How often the tracker is asked again once it answered (or refused).
    static let recheckInterval = Duration.seconds(3600)
}
