import AWSLocation
import Spool
import Synchronization
import TrackingCore

/// Moves positions from the spool to the tracker: quickly when online, patiently when not,
/// never losing one and never hammering the service.
///
/// - Batches of up to `batchSize` (the API's maximum, 10), oldest first, sent when full or when
///   the oldest fix is `uploadInterval` old (by its fix time, and never later than
///   `uploadInterval` after it was first seen), so the delay from fix to tracker stays bounded.
/// - Up to `maxInFlight` requests at once under a token bucket of `maxRequestRate` requests a
///   second. The account's quota for BatchUpdateDevicePosition is 50 requests/s shared by the
///   whole fleet: the default of 10/s lets five devices drain backlogs at once, and 4 in flight
///   keep a high-latency link busy at that rate. After a failure, one at a time until one
///   succeeds (`UploadSchedule`).
/// - A 200 acknowledges every position not in `Errors`. Item errors `ThrottlingError` and
///   `InternalServerError` are retried later; the others go to the dead-letter table.
/// - Throttling lowers the uploader's own request rate (`RequestRate`: the quota is the whole
///   fleet's) and the throttled request goes again after a random part of the new interval.
///   With `quota-share`, the rate stays at the share and the request goes again a moment later.
/// - 5xx, timeouts and connection errors back off exponentially with full jitter
///   (1 s doubling to 5 min), honouring `Retry-After`. A whole-batch validation error is bisected
///   until the bad positions are isolated and dead-lettered alone. Credentials, permissions, a
///   missing tracker or a wrong clock are configuration problems: said once, retried slowly, the
///   queue kept.
/// - `stop()`: no new batches; in-flight requests get `stopDeadline`, then are cancelled; every
///   unacknowledged position stays in the spool, and no request outlives `run()`.
public final class Uploader: Sendable {
    struct State {
        var active = 0
        /// When to send, wait or back off (pure; see `UploadSchedule`).
        var schedule: UploadSchedule
        var statistics = Statistics()
        /// What the tracker's filtering would store of the queue (see `TrackerSpacingGuard`).
        var spacing: TrackerSpacingGuard
        /// The request rate the shared quota allows this device now.
        var rate: RequestRate
        /// The newest fix time handed out so far: the live lane takes positions after it.
        var liveMark: FixTime?
        /// The day's bytes against `data-budget`.
        var budget: DataBudget
    }

    /// Requests go out at 95 % of `maxRequestRate`: evenly spaced sends still arrive with some
    /// network jitter, and the service counts arrivals.
    public static let rateHeadroom = 0.95

    /// The current settings; `update(_:)` changes them while running.
    public var configuration: Configuration { settings.withLock { $0 } }
    /// `upload-interval` as it is now, for a due time worked out under the state's lock: a reload
    /// forgets the partial batch's due time under that lock after it changed the settings, so a
    /// due time set from the turn's own copy of them, older than the reload, could outlive it (a
    /// partial batch would wait the old interval, an hour in the file sink's test).
    var currentUploadInterval: Double { settings.withLock { $0.uploadInterval } }
    let settings: Mutex<Configuration>
    let spool: Spool
    let destination: any Destination
    let events: @Sendable (UploaderEvent) -> Void
    let wallClock: @Sendable () -> FixTime
    let random: @Sendable () -> Double
    let clock = ContinuousClock()
    let state: Mutex<State>
    let bucket: Mutex<TokenBucket>
    let wakeup = Wakeup()
    private let loopTick = Mutex(ContinuousClock.now)

    /// When the upload loop last went round (for the service watchdog).
    public var lastLoop: ContinuousClock.Instant { loopTick.withLock { $0 } }

    /// The longest the loop waits without going round when all is well: idle, it waits
    /// `upload-interval` for new positions (up to an hour); paused or full, at most 10 s. A
    /// watchdog that allows less would call a healthy idle uploader stuck.
    public var longestWait: Duration { .milliseconds(Int64(max(configuration.uploadInterval, 10) * 1000)) }

    public init(
        configuration: Configuration, spool: Spool, destination: any Destination,
        events: @escaping @Sendable (UploaderEvent) -> Void = { _ in },
        wallClock: @escaping @Sendable () -> FixTime = SystemClock.now,
        random: @escaping @Sendable () -> Double = { Double.random(in: 0..<1) },
        lastStored: Location? = nil, spentToday: (bytes: Int, asOf: FixTime)? = nil
    ) {
        self.settings = Mutex(configuration)
        let rate = RequestRate(ceiling: configuration.maxRequestRate * Self.rateHeadroom, share: configuration.quotaShare)
        var initial = State(schedule: UploadSchedule(retry: configuration.retry, misconfiguredRetry: configuration.misconfiguredRetry),
                            spacing: TrackerSpacingGuard(lastStored: lastStored), rate: rate,
                            budget: DataBudget(bytesPerDay: configuration.dataBudget))
        initial.statistics.lastStored = lastStored
        if let spentToday {
            // A restart does not give the day's budget back.
            initial.budget.resume(spent: spentToday.bytes, asOf: spentToday.asOf)
        }
        state = Mutex(initial)
        self.spool = spool
        self.destination = destination
        self.events = events
        self.wallClock = wallClock
        self.random = random
        // Under a share, the first request waits a random part of the interval: devices that
        // start together (a fleet after an outage) begin at phases of their own.
        bucket = Mutex(TokenBucket(rate: rate.current, burst: 1, tokens: rate.share == nil ? nil : random()))
        // New positions in the spool: look sooner.
        spool.onAppend { [wakeup] in wakeup.signal() }
    }

    /// An uploader to the tracker behind `client`.
    public convenience init(
        configuration: Configuration, spool: Spool, client: TrackerClient,
        events: @escaping @Sendable (UploaderEvent) -> Void = { _ in },
        wallClock: @escaping @Sendable () -> FixTime = SystemClock.now,
        random: @escaping @Sendable () -> Double = { Double.random(in: 0..<1) },
        lastStored: Location? = nil, spentToday: (bytes: Int, asOf: FixTime)? = nil
    ) {
        self.init(configuration: configuration, spool: spool, destination: TrackerDestination(client: client), events: events,
                  wallClock: wallClock, random: random, lastStored: lastStored, spentToday: spentToday)
    }

    /// The counters, with the rate and the day's bytes as they stand now (read from the
    /// `RequestRate` and the `DataBudget`, not copied into the counters as they change).
    public var statistics: Statistics {
        let wall = wallClock()
        return state.withLock { s in
            var statistics = s.statistics
            statistics.requestRate = s.rate.current
            statistics.requestRateCeiling = s.rate.ceiling
            statistics.quotaShare = s.rate.share
            statistics.bytesToday = s.budget.spent(at: wall)
            return statistics
        }
    }

    /// Applies new batch, interval, concurrency and rate settings (a configuration reload);
    /// queued positions and counters are kept.
    public func update(_ configuration: Configuration) {
        let previous = settings.withLock { settings in
            defer { settings = configuration }
            return settings
        }
        let (rate, keepsPhase) = state.withLock { s in
            s.schedule.retry = configuration.retry
            s.schedule.misconfiguredRetry = configuration.misconfiguredRetry
            s.schedule.forgetPartialBatch()
            // A share given up for an overrun stays given up until the key changes.
            if configuration.quotaShare != previous.quotaShare { s.rate.setShare(configuration.quotaShare) }
            s.rate.setCeiling(configuration.maxRequestRate * Self.rateHeadroom)
            s.budget.bytesPerDay = max(0, configuration.dataBudget)
            return (s.rate.current, s.rate.share != nil)
        }
        // A share keeps the phase the device holds in the quota's window; otherwise a full
        // bucket lets a reload's new rate start at once.
        bucket.withLock { bucket in
            if keepsPhase { bucket.setRate(rate) } else { bucket = TokenBucket(rate: rate, burst: 1) }
        }
        wakeup.signal()
    }

    /// Stops taking new batches; `run()` returns once in-flight requests end or the deadline passes.
    public func stop() {
        state.withLock { $0.schedule.stop() }
        wakeup.signal()
    }

    private var isStopping: Bool { state.withLock { $0.schedule.isStopping } }

    /// Uploads until `stop()`. Requests run as child tasks of one group, so none outlives
    /// `run()`: at a stop they get `stopDeadline`, then are cancelled, and what they had not
    /// settled goes back to the queue.
    public func run() async {
        var progress = ProgressTracker(interval: configuration.progressInterval, threshold: configuration.backlogThreshold)
        await withDiscardingTaskGroup { requests in
            while await turn(&progress, requests: &requests) {}
            await finishInFlight()
            requests.cancelAll()
        }
        if destination.limits(configuration).drainsOnStop { await drain() }
    }

    /// One round of the loop: waits, or looks for a batch and launches it; false at a stop.
    private func turn(_ progress: inout ProgressTracker, requests: inout DiscardingTaskGroup) async -> Bool {
        let configuration = self.configuration
        let limits = destination.limits(configuration)
        let now = clock.now
        loopTick.withLock { $0 = now }
        await reportProgress(&progress, at: now)
        let next = state.withLock { s in
            s.schedule.next(at: now, unsent: spool.unsent, active: s.active, maxInFlight: limits.maxInFlight,
                            idleWait: .milliseconds(Int64(configuration.uploadInterval * 1000)))
        }
        switch next {
        case .stop: return false
        case let .wait(duration): await wakeup.wait(upTo: duration)
        case .look: if let rows = await look(configuration, limits, at: now) { launch(rows, in: &requests) }
        }
        return true
    }

    /// At a stop, for a destination the operator reads (a file): everything queued goes now, until
    /// the queue is empty or a delivery fails (what is left stays in the spool).
    private func drain() async {
        let limits = destination.limits(configuration)
        while let rows = try? await spool.peek(limit: limits.batchSize), !rows.isEmpty {
            let before = state.withLock { $0.statistics.failedRequests }
            await send(rows, tokenTaken: true)
            if state.withLock({ $0.statistics.failedRequests }) != before { break }
        }
    }

    // MARK: - One batch

    private func launch(_ rows: [SpooledPosition], in requests: inout DiscardingTaskGroup) {
        state.withLock { $0.active += 1 }
        // `active` counts it until it settles; `finishInFlight` waits for that at a stop.
        requests.addTask { [self] in
            await send(rows, tokenTaken: true)
            let wasFull = state.withLock { s -> Bool in
                s.active -= 1
                return s.active + 1 >= destination.limits(configuration).maxInFlight
            }
            // The loop waits for new positions on its own; it needs waking only for a free slot,
            // rows back in the queue (or still there), or a stop.
            if wasFull || spool.unsent > 0 || isStopping { wakeup.signal() }
        }
    }

    /// Sends `rows` and settles every one of them: acknowledged, dead-lettered or released.
    func send(_ rows: [SpooledPosition], tokenTaken: Bool) async {
        let configuration = self.configuration
        if !tokenTaken, destination.limits(configuration).rateLimited { await takeToken() }
        state.withLock { $0.statistics.requests += 1 }
        let started = clock.now
        defer { recordBytes() }
        do {
            await settle(rows, outcomes: try await destination.deliver(rows, configuration), sent: started)
        } catch let failure {
            if Task.isCancelled {
                // Abandoned at a stop past its deadline: not a failure of the destination.
                await spool.release(rows.map(\.id))
                return
            }
            switch failure.disposition {
            case .bisect:
                // The service's own words go with a position set aside.
                await bisect(rows, message: failure.detail ?? failure.reason)
            case let .retry(after):
                await spool.release(rows.map(\.id))
                recordFailure(failure.reason, retryAfter: after, misconfigured: false, startedAt: started)
            case let .slowDown(after):
                await spool.release(rows.map(\.id))
                throttled(sent: started, retryAfter: after, reason: failure.reason)
            case .misconfigured:
                await spool.release(rows.map(\.id))
                recordFailure(failure.reason, retryAfter: nil, misconfigured: true)
            }
        }
    }

    /// Counts a failure (see `UploadSchedule.failed`) and reports the first of an episode.
    func recordFailure(_ reason: String, retryAfter: Double?, misconfigured: Bool, quiet: Bool = false,
                               startedAt: ContinuousClock.Instant? = nil) {
        let now = clock.now
        let event = state.withLock { s -> UploaderEvent? in
            s.statistics.failedRequests += quiet ? 0 : 1
            s.statistics.lastError = reason
            return s.schedule.failed(reason, retryAfter: retryAfter, misconfigured: misconfigured, quiet: quiet,
                                     startedAt: startedAt, at: now, unit: random())
        }
        if let event { events(event) }
    }

    private func takeToken() async {
        while !Task.isCancelled, let wait = bucket.withLock({ $0.take(at: clock.now) }) {
            try? await Task.sleep(for: wait)
        }
    }

    private func finishInFlight() async {
        let deadline = clock.now + .milliseconds(Int64(configuration.stopDeadline * 1000))
        while state.withLock({ $0.active }) > 0, clock.now < deadline {
            await wakeup.wait(upTo: .milliseconds(100))
        }
    }

    // MARK: - Progress

    private func reportProgress(_ progress: inout ProgressTracker, at now: ContinuousClock.Instant) async {
        guard progress.due(at: now) else { return }
        guard let stats = try? await spool.statistics() else { return }
        let uploaded = state.withLock { $0.statistics.uploaded }
        if let event = progress.update(queued: stats.queued, oldest: stats.oldest, uploaded: uploaded, at: now, wall: wallClock()) {
            events(event)
        }
    }
}
