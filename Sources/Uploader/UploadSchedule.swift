import TrackingCore

/// The uploader's decisions as a pure state machine, with the instant passed in: whether to look
/// for a batch or wait (and how long), when a partial batch is due, and how a failure or a
/// success moves it between its phases. The uploader does the I/O; this decides.
///
/// Phases: `idle` (nothing queued), `batchDue` (a batch may go), `waitingForCompany` (a partial
/// batch waits for its oldest fix to be `upload-interval` old), `paused` (backing off after a
/// failure), `misconfigured` (nothing goes until the operator acts; retried slowly), `full`
/// (`max-in-flight` requests out, or one while a failure episode lasts), `stopping`.
public struct UploadSchedule: Sendable {
    public enum Phase: Sendable, Equatable {
        case idle, batchDue, waitingForCompany, paused, misconfigured, full, stopping
    }

    /// What the loop does next.
    public enum Next: Sendable, Equatable {
        /// Take a token and look at the queue.
        case look
        /// Wait this long (or until woken by new positions, a free slot or a stop).
        case wait(Duration)
        /// Stop taking batches.
        case stop
    }

    public var retry = RetryPolicy()
    /// Seconds between attempts while misconfigured.
    public var misconfiguredRetry: Double = 60

    public private(set) var failures = 0
    public private(set) var problem: String?
    public private(set) var misconfigured = false
    private var failedAt: ContinuousClock.Instant?
    private var pausedUntil: ContinuousClock.Instant?
    /// When the partial batch in the queue is due.
    private var partialDue: ContinuousClock.Instant?
    /// When the live lane's partial batch (the newest positions, ahead of a backlog) is due.
    private var liveDue: ContinuousClock.Instant?
    private var stopping = false

    public init(retry: RetryPolicy = RetryPolicy(), misconfiguredRetry: Double = 60) {
        self.retry = retry
        self.misconfiguredRetry = misconfiguredRetry
    }

    /// The phase at `now`, for status and tests.
    public func phase(at now: ContinuousClock.Instant, unsent: Int, active: Int, maxInFlight: Int) -> Phase {
        if stopping { return .stopping }
        if let until = pausedUntil, now < until { return misconfigured ? .misconfigured : .paused }
        // After a failure, until a request succeeds, one at a time: the first answer after a pause
        // says whether the service is back, and requests launched beside it would only meet the
        // same outage (more of them the slower the service answers).
        if active >= (failures > 0 ? 1 : maxInFlight) { return .full }
        if unsent == 0 { return .idle }
        if let due = partialDue, now < due { return .waitingForCompany }
        return .batchDue
    }

    /// The next step at `now`; `idleWait` is how long to wait for new positions (upload-interval).
    public mutating func next(at now: ContinuousClock.Instant, unsent: Int, active: Int, maxInFlight: Int, idleWait: Duration) -> Next {
        switch phase(at: now, unsent: unsent, active: active, maxInFlight: maxInFlight) {
        case .stopping: return .stop
        case .paused, .misconfigured: return .wait(min(pausedUntil! - now, .seconds(10)))
        case .full: return .wait(.seconds(1))
        case .idle:
            partialDue = nil
            return .wait(max(.seconds(1), idleWait))
        case .waitingForCompany: return .wait(partialDue! - now)
        case .batchDue: return .look
        }
    }

    /// The queue held none after all (a look found it empty), or the interval changed (a
    /// reload): the next partial batch's due time is worked out anew.
    public mutating func forgetPartialBatch() { partialDue = nil }

    /// A look found `count` positions, fewer than a full batch, the oldest of which is `age`
    /// seconds old by its fix time: whether they go now. A partial batch goes when its oldest fix
    /// is `interval` old, so the delay from fix to tracker stays near the interval even when the
    /// filter held the fix back for the track's shape. The age is clamped to the interval: a
    /// wrong system clock changes batching only, never how long a position waits.
    public mutating func partialBatchGoes(at now: ContinuousClock.Instant, oldestAge age: Double, interval: Double) -> Bool {
        Self.goes(&partialDue, at: now, oldestAge: age, interval: interval)
    }

    /// The same rule for the live lane's positions while a backlog drains behind them: they go
    /// when the oldest of them is `interval` old, or when they fill a batch (`full`).
    public mutating func liveBatchGoes(at now: ContinuousClock.Instant, oldestAge age: Double, interval: Double, full: Bool) -> Bool {
        if full {
            liveDue = nil
            return true
        }
        return Self.goes(&liveDue, at: now, oldestAge: age, interval: interval)
    }

    private static func goes(_ due: inout ContinuousClock.Instant?, at now: ContinuousClock.Instant, oldestAge age: Double, interval: Double) -> Bool {
        let when = due ?? now + .milliseconds(Int64((interval - min(max(age, 0), interval)) * 1000))
        due = when
        guard now >= when else { return false }
        due = nil
        return true
    }

    /// A full batch goes.
    public mutating func batchGoes() { partialDue = nil }

    /// A throttled answer (or the day's `data-budget` spent): nothing more goes until `until`.
    /// Not a failure: the service is up, the fleet's quota (or the SIM's allowance) is full, so
    /// no failure episode begins and requests are not held to one at a time.
    public mutating func hold(until: ContinuousClock.Instant) {
        if pausedUntil.map({ $0 < until }) ?? true { pausedUntil = until }
    }

    /// A failure at `now`. `startedAt` is when the failing request began: requests in flight
    /// together meet the same outage and count as one failure, so that a short outage with four
    /// in flight does not back off as a long one would. `unit` is a random number in [0, 1) for
    /// the jitter. Returns the event to report, once per episode (and for every misconfiguration).
    public mutating func failed(_ reason: String, retryAfter: Double?, misconfigured isMisconfigured: Bool, quiet: Bool = false,
                                startedAt: ContinuousClock.Instant? = nil, at now: ContinuousClock.Instant, unit: Double) -> UploaderEvent? {
        let sameRound = startedAt.flatMap { started in failedAt.map { started < $0 } } ?? false
        if !sameRound || failures == 0 {
            failures += 1
            failedAt = now
        }
        misconfigured = isMisconfigured
        let delay = isMisconfigured ? misconfiguredRetry : retry.delay(failures: failures, retryAfter: retryAfter, unit: unit)
        let until = now + .milliseconds(Int64(delay * 1000))
        if pausedUntil.map({ $0 < until }) ?? true { pausedUntil = until }
        guard !quiet, problem != reason || failures == 1 else { return nil }
        let first = problem == nil
        problem = reason
        guard first || isMisconfigured else { return nil }
        return isMisconfigured ? .misconfigured(reason, retryIn: delay) : .failing(reason, retryIn: delay)
    }

    /// A request was answered with every position settled: the episode ends. Returns how many
    /// failures it had, when there were any.
    public mutating func succeeded() -> Int? {
        let had = failures
        failures = 0
        failedAt = nil
        pausedUntil = nil
        problem = nil
        misconfigured = false
        return had > 0 ? had : nil
    }

    public mutating func stop() { stopping = true }

    /// Whether `stop()` was asked for.
    public var isStopping: Bool { stopping }
}
