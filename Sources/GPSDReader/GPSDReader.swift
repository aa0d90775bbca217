import Dispatch
import Glibc
import Synchronization
import TrackingCore

/// Reads gpsd through libgps on a dedicated thread and never gives up.
///
/// libgps blocks, so one thread owns the session: it waits for data in short slices (checking the
/// stop flag between them), converts each report at once, and hands `ReaderEvent`s to an
/// `AsyncStream` with a bounded buffer. The thread never waits on the consumer: gpsd drops clients
/// that read too slowly, so when the buffer is full the oldest events are dropped and counted.
///
/// Failures and what the reader does:
/// - gpsd not running: retry with capped backoff (1 s doubling to 30 s), reported once.
/// - gpsd restarts (`gps_read` returns -1 with an empty message): close, reopen, re-WATCH.
/// - a receiver unplugged (`DEVICE` with `"activated":0`): reported; the pending epoch is flushed.
/// - no TPV for `noDataTimeout`: reported once, then reconnect.
/// - unparsable lines and absurd values: counted and skipped.
public final class GPSDReader: Sendable {
    /// Why one session ended.
    private enum SessionEnd {
        case stopped
        /// The connection ended; `afterData` when the session had delivered reports.
        case lost(GPSDError, afterData: Bool)
        case silent
        /// gpsd sent a line libgps cannot read; the connection is dropped and opened again at once.
        case oversizedLine
    }

    /// Work for each event on the reader's own thread, in the order the reader produced them,
    /// before anything crosses to the consumer; returning false keeps the event off `events`.
    /// Handing a fix to another thread costs more than reading it, so a consumer that drops most
    /// fixes (the daemon's filter) does it here; and what must happen between two fixes (the
    /// filter deciding what it held when the receiver lost its fix) can only be in order here:
    /// on `events` it lands wherever the consumer's task happens to be by then. It must be quick
    /// and must not block: it runs between two reads from gpsd.
    public typealias EventHandler = @Sendable (ReaderEvent) -> Bool

    public let configuration: Configuration
    private let onEvent: EventHandler?
    /// Everything the reader produces, in order. Finishes after `stop()`.
    public let events: AsyncStream<ReaderEvent>

    private let continuation: AsyncStream<ReaderEvent>.Continuation
    private let stopRequested = Atomic<Bool>(false)
    private let started = Atomic<Bool>(false)
    private let wakeUp = DispatchSemaphore(value: 0)
    private let counters = Mutex(ReaderStatistics())
    /// The socket of the session being read, so that `stop()` can end a wait on it at once.
    private let activeSocket = Mutex<Int32?>(nil)
    private let tick = Atomic<Int64>(0)
    private let created = ContinuousClock.now

    public init(configuration: Configuration, onEvent: EventHandler? = nil) {
        self.configuration = configuration
        self.onEvent = onEvent
        (events, continuation) = AsyncStream.makeStream(
            of: ReaderEvent.self, bufferingPolicy: .bufferingNewest(max(1, configuration.bufferSize)))
    }

    /// When the reader thread last went round its loop (for the service watchdog).
    public var lastLoop: ContinuousClock.Instant {
        created + .nanoseconds(tick.load(ordering: .relaxed))
    }

    private func markLoop() {
        let elapsed = ContinuousClock.now - created
        tick.store(elapsed.nanoseconds, ordering: .relaxed)
    }

    /// A snapshot of the counters.
    public var statistics: ReaderStatistics { counters.withLock { $0 } }

    /// Starts the reader thread. Calling it again does nothing.
    public func start() {
        guard !started.exchange(true, ordering: .acquiringAndReleasing) else { return }
        let thread = DispatchQueue(label: "gpstrackd.gpsd-reader", qos: .userInitiated)
        thread.async { [self] in
            run()
            continuation.finish()
        }
    }

    /// Asks the reader to stop; it flushes the epoch in hand, then `events` finishes.
    /// Returns at once; a wait for data or a backoff pause ends at once.
    public func stop() {
        guard !stopRequested.exchange(true, ordering: .acquiringAndReleasing) else { return }
        // Shutting the socket down wakes the reader from its wait; the descriptor stays open
        // (the reader closes it), so it cannot be another file's by then.
        activeSocket.withLock { socket in
            if let socket { _ = shutdown(socket, Int32(SHUT_RDWR)) }
        }
        wakeUp.signal()
        if !started.load(ordering: .acquiring) { continuation.finish() }
    }

    private var isStopping: Bool { stopRequested.load(ordering: .acquiring) }

    // MARK: - The reader thread

    /// What the operator was last told about the link to gpsd; events are sent on changes only.
    private enum LinkState {
        case starting, connected, silent, down
    }

    private func run() {
        var backoff = Backoff(initial: configuration.initialBackoff, maximum: configuration.maxBackoff)
        var assembler = EpochAssembler(
            headingMaxAge: configuration.headingMaxAge, epochQuietTime: configuration.epochQuietTime)
        var fixState = FixState()
        var link = LinkState.starting
        var sessions = 0
        while !isStopping {
            let session: GPSDSession
            do {
                session = try GPSDSession(endpoint: configuration.endpoint)
            } catch {
                if link != .down {
                    emit(.unreachable(error, retryingEvery: configuration.maxBackoff))
                    link = .down
                }
                pause(backoff.next())
                continue
            }
            sessions += 1
            if sessions > 1 { counters.withLock { $0.reconnects += 1 } }
            if link != .silent {
                emit(.connected(configuration.endpoint))
                link = .connected
            }
            activeSocket.withLock { $0 = session.socket }
            let end = isStopping ? .stopped : read(session, assembler: &assembler, fixState: &fixState, link: &link)
            activeSocket.withLock { $0 = nil }
            if let location = assembler.flush() { deliver(location, fixState: &fixState) }
            publish(assembler)
            switch end {
            case .stopped:
                return
            case let .lost(error, afterData):
                emit(.disconnected(error))
                link = .down
                // A session that delivered data was a good one: the next try comes soon, not after
                // the delay the last run of failures had reached.
                if afterData { backoff.reset() }
                pause(backoff.next())
            case .oversizedLine:
                let first = counters.withLock { c in
                    c.oversizedLines += 1
                    return c.oversizedLines == 1
                }
                if first { emit(.oversizedLine) }
                backoff.reset()
            case .silent:
                if link != .silent {
                    emit(.noData(after: configuration.noDataTimeout))
                    link = .silent
                }
                backoff.reset()
                pause(configuration.initialBackoff)
            }
        }
    }

    /// Reads one session until it ends; returns why.
    private func read(
        _ session: GPSDSession, assembler: inout EpochAssembler, fixState: inout FixState, link: inout LinkState
    ) -> SessionEnd {
        let clock = ContinuousClock()
        var lastTPV = clock.now
        var pacing = BurstPacing(window: configuration.burstWindow)
        var lastMessage = clock.now
        var delivered = false
        let waitMicroseconds = Int32(clamping: max(1, configuration.pollInterval.microseconds))
        while true {
            if isStopping { return .stopped }
            markLoop()
            let now = clock.now
            if let location = assembler.flushIfQuiet(at: now) {
                deliver(location, fixState: &fixState)
                publish(assembler)
            }
            if now - lastTPV >= configuration.noDataTimeout { return .silent }
            // libgps answers at once, without a system call, while a complete line is still in
            // its buffer; otherwise a zero wait asks the socket whether more has come.
            let inHand = session.waitForData(microseconds: 0)
            pacing.looked(found: inHand)
            if !inHand {
                if pacing.restDue {
                    // The start of a burst is read: rest while the rest of it comes.
                    pacing.rest()
                    counters.withLock { $0.rests += 1 }
                    pause(configuration.burstWindow)
                    continue
                }
                // Nothing in hand: wait for the next burst, no longer than until the epoch in hand
                // is due, so that the last fix before a silence still comes out `epochQuietTime`
                // after it arrived.
                var wait = waitMicroseconds
                if let due = assembler.quietDeadline {
                    wait = Int32(clamping: min(Int64(wait), max(1, (due - now).microseconds + 1000)))
                }
                guard session.waitForData(microseconds: wait) else { continue }
                counters.withLock { $0.bursts += 1 }
                pacing.woke(after: clock.now - lastMessage)
            }
            switch session.read() {
            case .incomplete:
                continue
            case let .disconnected(reason):
                if isStopping { return .stopped }
                return .lost(.connectionLost(endpoint: session.endpoint, reason: reason), afterData: delivered)
            case .oversizedLine:
                return .oversizedLine
            case let .report(report):
                let at = clock.now
                delivered = true
                lastMessage = at
                if case .tpv = report {
                    lastTPV = at
                    if link == .silent {
                        link = .connected
                        emit(.dataResumed)
                    }
                }
                handle(report, at: at, assembler: &assembler, fixState: &fixState)
            }
        }
    }

    private func handle(
        _ report: GPSDReport, at now: ContinuousClock.Instant,
        assembler: inout EpochAssembler, fixState: inout FixState
    ) {
        counters.withLock { $0.messages += 1 }
        switch report {
        case let .tpv(tpv):
            counters.withLock { $0.tpvReports += 1 }
            for location in assembler.add(tpv, at: now) {
                deliver(location, fixState: &fixState)
            }
            for notice in assembler.takeNotices() { emit(.timeline(notice)) }
            if tpv.mode < 2, fixState.hasFix,
               tpv.time.map({ time in assembler.lastEmitted.map { time > $0 } ?? true }) ?? true {
                fixState.hasFix = false
                emit(.fixLost)
            }
            publish(assembler)
        case let .attitude(heading, time):
            counters.withLock { $0.attitudeReports += 1 }
            if let heading { assembler.addHeading(heading, time: time, at: now) }
        case let .errorEstimate(estimate):
            // Counted either way: the count tells an operator whether the receiver sends GST.
            counters.withLock { $0.errorEstimateReports += 1 }
            if configuration.accuracySource == .gst { assembler.addErrorEstimate(estimate) }
        case let .malformedAttitude(heading, time):
            counters.withLock {
                $0.attitudeReports += 1
                $0.malformedAttitude += 1
            }
            if let heading { assembler.addHeading(heading, time: time, at: now) }
        case let .deviceActivated(path):
            emit(.deviceActivated(path: path))
        case let .deviceDeactivated(path):
            if let location = assembler.flush() { deliver(location, fixState: &fixState) }
            publish(assembler)
            emit(.deviceDeactivated(path: path))
        case let .gpsdError(message):
            emit(.gpsdError(message))
        case .unparsable:
            counters.withLock { $0.unparsable += 1 }
        case .version, .other:
            break
        }
    }

    private func deliver(_ location: Location, fixState: inout FixState) {
        if !fixState.hasFix {
            fixState.hasFix = true
            emit(.fixAcquired(location.mode))
        }
        counters.withLock { $0.locations += 1 }
        emit(.location(location))
    }

    private func publish(_ assembler: EpochAssembler) {
        counters.withLock { $0.epochs = assembler.counters }
    }

    private func emit(_ event: ReaderEvent) {
        if let onEvent, !onEvent(event) { return }
        if case .dropped = continuation.yield(event) {
            counters.withLock { $0.droppedEvents += 1 }
        }
    }

    /// Sleeps for `duration` unless `stop()` wakes it.
    private func pause(_ duration: Duration) {
        guard !isStopping else { return }
        markLoop()
        // Sleep in slices of at most a second so the loop keeps showing it is alive.
        var remaining = duration
        while remaining > .seconds(1), !isStopping {
            _ = wakeUp.wait(timeout: .now() + .seconds(1))
            if isStopping { wakeUp.signal(); return }
            markLoop()
            remaining -= .seconds(1)
        }
        let nanos = UInt64(max(0, remaining.nanoseconds))
        _ = wakeUp.wait(timeout: .now() + .nanoseconds(Int(min(nanos, UInt64(Int.max)))))
        if isStopping { wakeUp.signal() }
    }
}

/// Whether the receiver currently has a fix, for `fixAcquired`/`fixLost` events.
private struct FixState {
    var hasFix = false
}
