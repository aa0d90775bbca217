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
///   keep a high-latency link busy at that rate.
/// - A 200 acknowledges every position not in `Errors`. Item errors `ThrottlingError` and
///   `InternalServerError` are retried later; the others go to the dead-letter table.
/// - Throttling, 5xx, timeouts and connection errors back off exponentially with full jitter
///   (1 s doubling to 5 min), honouring `Retry-After`. A whole-batch validation error is bisected
///   until the bad positions are isolated and dead-lettered alone. Credentials, permissions, a
///   missing tracker or a wrong clock are configuration problems: said once, retried slowly, the
///   queue kept.
/// - `stop()`: no new batches; in-flight requests get `stopDeadline`; every unacknowledged
///   position stays in the spool.
public final class Uploader: Sendable {
    public struct Configuration: Sendable, Equatable {
        public var tracker: String
        public var deviceID: String
        public var batchSize = 10
        public var uploadInterval: Double = 5
        public var maxInFlight = 4
        public var maxRequestRate: Double = 10
        public var properties: [PositionProperty] = [.speed, .course]
        public var retry = RetryPolicy()
        /// Seconds between attempts while misconfigured.
        public var misconfiguredRetry: Double = 60
        /// Seconds between backlog progress events.
        public var progressInterval: Double = 30
        /// A backlog worth reporting: this many positions queued.
        public var backlogThreshold = 100
        public var stopDeadline: Double = 10
        /// The tracker's `PositionFiltering`: a position it would not store is not sent (it is
        /// acknowledged as withheld), so that nothing is paid for and lost.
        public var trackerFiltering: TrackerFiltering = .none
        /// Whether `trackerFiltering` is the tracker's own (configured, answered, remembered): only
        /// then are queued positions withheld for it, never on a guess.
        public var trackerFilteringKnown = true

        public init(tracker: String, deviceID: String) {
            self.tracker = tracker
            self.deviceID = deviceID
        }
    }

    /// Counters for status and tests.
    public struct Statistics: Sendable, Equatable {
        public var uploaded = 0
        public var requests = 0
        public var failedRequests = 0
        public var deadLettered = 0
        /// Positions not sent because the tracker's filtering would not have stored them.
        public var withheld = 0
        public var lastSuccess: FixTime?
        public var lastError: String?
        /// The newest position the tracker accepted (by fix time): where its filtering stands.
        public var lastStored: Location?
    }

    private struct State {
        var active = 0
        var failures = 0
        /// When the last failure was counted: a request that started before it failed in the
        /// same round (requests in flight together meet the same outage) and does not count again.
        var failedAt: ContinuousClock.Instant?
        var pausedUntil: ContinuousClock.Instant?
        var problem: String?
        var statistics = Statistics()
        /// When the partial batch in the spool is due (see `run()`).
        var pendingDue: ContinuousClock.Instant?
        /// The newest position (by fix time) let through to the tracker, sent or about to be.
        var lastPlanned: Location?
        /// The fix time of the position the tracker stored before this run: the row with it in the
        /// spool was sent and stored, its acknowledgement lost.
        var storedBefore: FixTime?
    }

    /// Requests go out at 95 % of `maxRequestRate`: evenly spaced sends still arrive with some
    /// network jitter, and the service counts arrivals.
    public static let rateHeadroom = 0.95

    /// The current settings; `update(_:)` changes them while running.
    public var configuration: Configuration { settings.withLock { $0 } }
    private let settings: Mutex<Configuration>
    private let spool: Spool
    private let client: TrackerClient
    private let events: @Sendable (UploaderEvent) -> Void
    private let wallClock: @Sendable () -> FixTime
    private let random: @Sendable () -> Double
    private let clock = ContinuousClock()
    private let state = Mutex(State())
    private let bucket: Mutex<TokenBucket>
    private let stopping = Atomic<Bool>(false)
    private let wakeup = Wakeup()
    private let loopTick = Mutex(ContinuousClock.now)

    /// When the upload loop last went round (for the service watchdog).
    public var lastLoop: ContinuousClock.Instant { loopTick.withLock { $0 } }

    /// The longest the loop waits without going round when all is well: idle, it waits
    /// `upload-interval` for new positions (up to an hour); paused or full, at most 10 s. A
    /// watchdog that allows less would call a healthy idle uploader stuck.
    public var longestWait: Duration { .milliseconds(Int64(max(configuration.uploadInterval, 10) * 1000)) }

    public init(
        configuration: Configuration, spool: Spool, client: TrackerClient,
        events: @escaping @Sendable (UploaderEvent) -> Void = { _ in },
        wallClock: @escaping @Sendable () -> FixTime = SystemClock.now,
        random: @escaping @Sendable () -> Double = { Double.random(in: 0..<1) },
        lastStored: Location? = nil
    ) {
        self.settings = Mutex(configuration)
        state.withLock {
            $0.lastPlanned = lastStored
            $0.storedBefore = lastStored?.time
            $0.statistics.lastStored = lastStored
        }
        self.spool = spool
        self.client = client
        self.events = events
        self.wallClock = wallClock
        self.random = random
        bucket = Mutex(TokenBucket(rate: configuration.maxRequestRate * Self.rateHeadroom, burst: 1))
        // New positions in the spool: look sooner.
        spool.onAppend { [wakeup] in wakeup.signal() }
    }

    public var statistics: Statistics { state.withLock { $0.statistics } }

    /// Applies new batch, interval, concurrency and rate settings (a configuration reload);
    /// queued positions and counters are kept.
    public func update(_ configuration: Configuration) {
        settings.withLock { $0 = configuration }
        bucket.withLock { $0 = TokenBucket(rate: configuration.maxRequestRate * Self.rateHeadroom, burst: 1) }
        wakeup.signal()
    }

    /// Stops taking new batches; `run()` returns once in-flight requests end or the deadline passes.
    public func stop() {
        stopping.store(true, ordering: .releasing)
        wakeup.signal()
    }

    private var isStopping: Bool { stopping.load(ordering: .acquiring) }

    /// Uploads until `stop()`.
    public func run() async {
        var progress = ProgressTracker(interval: configuration.progressInterval, threshold: configuration.backlogThreshold)
        while !isStopping {
            let configuration = self.configuration
            let now = clock.now
            loopTick.withLock { $0 = now }
            await reportProgress(&progress, at: now)
            if let until = state.withLock({ $0.pausedUntil }), now < until {
                await wakeup.wait(upTo: min(until - now, .seconds(10)))
                continue
            }
            if state.withLock({ $0.active }) >= configuration.maxInFlight {
                await wakeup.wait(upTo: .seconds(1))
                continue
            }
            if spool.unsent == 0 {
                await waitForPositions(configuration)
                continue
            }
            // A token first, so that no batch waits in flight for one.
            if let wait = bucket.withLock({ $0.take(at: clock.now) }) {
                try? await Task.sleep(for: wait)
                continue
            }
            let rows: [SpooledPosition]
            do {
                rows = try await spool.peek(limit: configuration.batchSize)
            } catch {
                bucket.withLock { $0.refund() }
                recordFailure("spool: \(error)", retryAfter: nil, misconfigured: false)
                continue
            }
            if rows.isEmpty {
                bucket.withLock { $0.refund() }
                await waitForPositions(configuration)
                continue
            }
            if configuration.trackerFilteringKnown,
               let kept = await withholdUnstorable(rows, filtering: configuration.trackerFiltering), kept.count < rows.count {
                // Some were withheld; what is left comes back with the next look.
                bucket.withLock { $0.refund() }
                await spool.release(kept.map(\.id))
                continue
            }
            if rows.count < configuration.batchSize {
                // A partial batch goes when its oldest fix is `uploadInterval` old, so the delay
                // from fix to tracker stays near the interval even when the filter held the fix
                // back for the track's shape. The age is clamped to the interval: a wrong system
                // clock changes batching only, never how long a position waits.
                let due = state.withLock { s -> ContinuousClock.Instant in
                    if let due = s.pendingDue { return due }
                    let age = min(max(rows[0].location.time.seconds(to: wallClock()), 0), configuration.uploadInterval)
                    let due = now + .milliseconds(Int64((configuration.uploadInterval - age) * 1000))
                    s.pendingDue = due
                    return due
                }
                if now < due {
                    bucket.withLock { $0.refund() }
                    await spool.release(rows.map(\.id))
                    await wakeup.wait(upTo: due - now)
                    continue
                }
            }
            state.withLock { $0.pendingDue = nil }
            launch(rows)
        }
        await finishInFlight()
    }

    /// Nothing to send: no partial batch pending; wait for new positions (or the interval).
    private func waitForPositions(_ configuration: Configuration) async {
        state.withLock { $0.pendingDue = nil }
        await wakeup.wait(upTo: .seconds(max(1, configuration.uploadInterval)))
    }

    // MARK: - The tracker's filtering

    /// Acknowledges, without sending, the rows the tracker's filtering would not store after the
    /// newest position already let through; returns the rest (nil when every row goes).
    /// A row no newer than that position was let through before (a retry) and goes again; the
    /// row the tracker stored before a restart does not.
    private func withholdUnstorable(_ rows: [SpooledPosition], filtering: TrackerFiltering) async -> [SpooledPosition]? {
        guard filtering != .none else { return nil }
        let (kept, withheld) = state.withLock { s -> ([SpooledPosition], [SpooledPosition]) in
            var kept: [SpooledPosition] = []
            var withheld: [SpooledPosition] = []
            for row in rows {
                if row.location.time == s.storedBefore {
                    withheld.append(row)
                } else if let last = s.lastPlanned, row.location.time <= last.time {
                    kept.append(row)
                } else if filtering.stores(row.location, after: s.lastPlanned) {
                    kept.append(row)
                    s.lastPlanned = row.location
                } else {
                    withheld.append(row)
                }
            }
            return (kept, withheld)
        }
        guard !withheld.isEmpty else { return nil }
        do {
            try await spool.ack(withheld.map(\.id))
            state.withLock { $0.statistics.withheld += withheld.count }
            events(.withheld(count: withheld.count, filtering: filtering))
        } catch {
            await spool.release(withheld.map(\.id))
            recordFailure("spool: \(error)", retryAfter: nil, misconfigured: false)
        }
        return kept
    }

    // MARK: - One batch

    private func launch(_ rows: [SpooledPosition]) {
        state.withLock { $0.active += 1 }
        // `active` counts it until it settles; `finishInFlight` waits for that at a stop.
        Task { [self] in
            await send(rows, tokenTaken: true)
            let wasFull = state.withLock { s -> Bool in
                s.active -= 1
                return s.active + 1 >= configuration.maxInFlight
            }
            // The loop waits for new positions on its own; it needs waking only for a free slot,
            // rows back in the queue (or still there), or a stop.
            if wasFull || spool.unsent > 0 || isStopping { wakeup.signal() }
        }
    }

    /// Sends `rows` and settles every one of them: acknowledged, dead-lettered or released.
    private func send(_ rows: [SpooledPosition], tokenTaken: Bool) async {
        if !tokenTaken { await takeToken() }
        let updates = rows.map { DevicePositionUpdate(deviceID: configuration.deviceID, location: $0.location, properties: configuration.properties) }
        state.withLock { $0.statistics.requests += 1 }
        let started = clock.now
        do {
            let itemErrors = try await client.batchUpdateDevicePosition(tracker: configuration.tracker, updates: updates)
            await settle(rows, itemErrors: itemErrors)
        } catch let error {
            switch error.disposition {
            case .bisect:
                // The service's own words go with a position set aside.
                var message = error.description
                if case let .validation(text) = error { message = text }
                await bisect(rows, message: message)
            case let .retry(after):
                await spool.release(rows.map(\.id))
                recordFailure(error.description, retryAfter: after, misconfigured: false, startedAt: started)
            case .misconfigured:
                await spool.release(rows.map(\.id))
                recordFailure(error.description, retryAfter: nil, misconfigured: true)
            }
        }
    }

    /// A whole-batch validation error: halve until the bad positions stand alone.
    private func bisect(_ rows: [SpooledPosition], message: String) async {
        guard rows.count > 1 else {
            await reject(rows, code: "ValidationException", message: message)
            return
        }
        let half = rows.count / 2
        await send(Array(rows[..<half]), tokenTaken: false)
        await send(Array(rows[half...]), tokenTaken: false)
    }

    private func settle(_ rows: [SpooledPosition], itemErrors: [BatchItemError]) async {
        var byTime: [FixTime: BatchItemError] = [:]
        for error in itemErrors { if let time = error.sampleTime { byTime[time] = error } }
        var accepted: [Int64] = []
        var retry: [Int64] = []
        var refused: [String: (message: String, rows: [SpooledPosition])] = [:]
        for row in rows {
            guard let error = byTime[row.location.time] else {
                accepted.append(row.id)
                continue
            }
            if error.isRetryable {
                retry.append(row.id)
            } else {
                refused[error.code, default: (error.message, [])].rows.append(row)
            }
        }
        do {
            try await spool.ack(accepted)
        } catch {
            recordFailure("spool: \(error)", retryAfter: nil, misconfigured: false)
        }
        for (code, group) in refused.sorted(by: { $0.key < $1.key }) {
            await reject(group.rows, code: code, message: group.message)
        }
        await spool.release(retry)
        let newest = rows.filter { byTime[$0.location.time] == nil }.map(\.location).max { $0.time < $1.time }
        let recovered = state.withLock { s -> Int? in
            s.statistics.uploaded += accepted.count
            if let newest, s.statistics.lastStored.map({ $0.time < newest.time }) ?? true { s.statistics.lastStored = newest }
            s.statistics.lastSuccess = wallClock()
            let failures = s.failures
            if retry.isEmpty {
                s.failures = 0
                s.pausedUntil = nil
                s.problem = nil
            }
            return failures > 0 && retry.isEmpty ? failures : nil
        }
        if let recovered { events(.recovered(afterFailures: recovered)) }
        if !retry.isEmpty {
            recordFailure("the tracker asked to retry \(retry.count) position(s) later", retryAfter: nil, misconfigured: false, quiet: true)
        }
    }

    private func reject(_ rows: [SpooledPosition], code: String, message: String) async {
        do {
            try await spool.reject(rows.map(\.id), code: code, message: message, at: wallClock())
            state.withLock { $0.statistics.deadLettered += rows.count }
            events(.deadLettered(count: rows.count, code: code, message: message))
        } catch {
            await spool.release(rows.map(\.id))
            recordFailure("spool: \(error)", retryAfter: nil, misconfigured: false)
        }
    }

    /// Pauses new batches after a failure and reports the first failure of an episode.
    /// Counts a failure and pauses sending. `startedAt` is when the failing request began: the
    /// requests in flight together when the service fails all fail, and count as one failure,
    /// so that a short outage with four in flight does not back off as a long one would.
    private func recordFailure(_ reason: String, retryAfter: Double?, misconfigured: Bool, quiet: Bool = false,
                               startedAt: ContinuousClock.Instant? = nil) {
        let now = clock.now
        let event = state.withLock { s -> UploaderEvent? in
            let sameRound = startedAt.flatMap { started in s.failedAt.map { started < $0 } } ?? false
            if !sameRound || s.failures == 0 {
                s.failures += 1
                s.failedAt = now
            }
            s.statistics.failedRequests += quiet ? 0 : 1
            s.statistics.lastError = reason
            let delay = misconfigured
                ? configuration.misconfiguredRetry
                : configuration.retry.delay(failures: s.failures, retryAfter: retryAfter, unit: random())
            let until = now + .milliseconds(Int64(delay * 1000))
            if s.pausedUntil.map({ $0 < until }) ?? true { s.pausedUntil = until }
            guard !quiet, s.problem != reason || s.failures == 1 else { return nil }
            let first = s.problem == nil
            s.problem = reason
            guard first || misconfigured else { return nil }
            return misconfigured ? .misconfigured(reason, retryIn: delay) : .failing(reason, retryIn: delay)
        }
        if let event { events(event) }
    }

    private func takeToken() async {
        while let wait = bucket.withLock({ $0.take(at: clock.now) }) {
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

/// Decides when to say "backlog …" and "drained".
struct ProgressTracker {
    let interval: Double
    let threshold: Int
    private var last: ContinuousClock.Instant?
    private var lastUploaded = 0
    private var backlogStart: (ContinuousClock.Instant, Int)?

    init(interval: Double, threshold: Int) {
        self.interval = interval
        self.threshold = threshold
    }

    func due(at now: ContinuousClock.Instant) -> Bool {
        guard let last else { return true }
        return now - last >= .milliseconds(Int64(interval * 1000))
    }

    mutating func update(queued: Int, oldest: FixTime?, uploaded: Int, at now: ContinuousClock.Instant, wall: FixTime) -> UploaderEvent? {
        let elapsed = last.map { Self.seconds(now - $0) } ?? 0
        let rate = elapsed > 0 ? Double(uploaded - lastUploaded) / elapsed : 0
        last = now
        lastUploaded = uploaded
        if queued >= threshold {
            if backlogStart == nil { backlogStart = (now, uploaded) }
            return .backlog(queued: queued, oldest: oldest, ratePerSecond: rate, now: wall)
        }
        if let (start, startUploaded) = backlogStart, queued == 0 {
            backlogStart = nil
            return .drained(uploaded: uploaded - startUploaded, seconds: Self.seconds(now - start))
        }
        return nil
    }

    static func seconds(_ d: Duration) -> Double {
        Double(d.components.seconds) + Double(d.components.attoseconds) / 1e18
    }
}
