import Spool
import TrackingCore

/// Which rows go next: a token first, the live lane ahead of a backlog, the tracker's filtering,
/// the partial-batch rule and the day's `data-budget`.
extension Uploader {
    /// Takes a token and the next rows; returns the batch to send now, or nil (nothing, some
    /// withheld, a partial batch not yet due, no token yet).
    func look(_ configuration: Configuration, _ limits: DestinationLimits, at now: ContinuousClock.Instant) async -> [SpooledPosition]? {
        // A token first, so that no batch waits in flight for one. The wait ends early when woken:
        // a throttled answer under a share gives its token back, and its retry comes sooner.
        if limits.rateLimited, let wait = bucket.withLock({ $0.take(at: clock.now) }) {
            await wakeup.wait(upTo: wait)
            return nil
        }
        let rows: [SpooledPosition]
        let live: Bool
        do {
            if let newest = try await liveBatch(configuration, limits, at: now) {
                (rows, live) = (newest, true)
            } else {
                (rows, live) = (try await spool.peek(limit: limits.batchSize), false)
                if let newest = rows.last?.location.time { state.withLock { $0.liveMark = max($0.liveMark ?? newest, newest) } }
            }
        } catch {
            bucket.withLock { $0.refund() }
            recordFailure("spool: \(error)", retryAfter: nil, misconfigured: false)
            return nil
        }
        guard !rows.isEmpty else {
            // `unsent` ran ahead of the queue (it is as of the last operation): wait for news.
            bucket.withLock { $0.refund() }
            state.withLock { $0.schedule.forgetPartialBatch() }
            await wakeup.wait(upTo: .milliseconds(Int64(max(1, configuration.uploadInterval) * 1000)))
            return nil
        }
        if configuration.trackerFilteringKnown,
           let kept = await withholdUnstorable(rows, filtering: configuration.trackerFiltering, live: live), kept.count < rows.count {
            // Some were withheld; what is left comes back with the next look.
            await notNow(kept)
            return nil
        }
        let goes = live || state.withLock { s in
            rows.count < limits.batchSize
                ? s.schedule.partialBatchGoes(at: now, oldestAge: limits.waitsFromFixTime ? rows[0].location.time.seconds(to: wallClock()) : 0,
                                             interval: currentUploadInterval)
                : { s.schedule.batchGoes(); return true }()
        }
        guard goes else {
            await notNow(rows)
            return nil
        }
        let wall = wallClock()
        if let wait = state.withLock({ $0.budget.wait(full: rows.count == limits.batchSize, at: wall, inFlight: $0.active) }) {
            // Over the day's share of `data-budget`: the rows wait in the spool, and more come to
            // fill the batch meanwhile. Looked at again within 10 s (a reload may lift it).
            await notNow(rows)
            state.withLock { $0.schedule.hold(until: now + .milliseconds(Int64(min(wait, 10) * 1000))) }
            return nil
        }
        return rows
    }

    /// Rows taken that do not go now: back to the queue, and the token taken for them back to
    /// the bucket.
    private func notNow(_ rows: [SpooledPosition]) async {
        bucket.withLock { $0.refund() }
        await spool.release(rows.map(\.id))
    }

    /// With more than a batch queued, the newest positions (fixed after the newest handed out so
    /// far) go ahead of the backlog when they fill a batch or the oldest of them is
    /// `upload-interval` old, so the tracker's latest position stays near the vehicle's while
    /// the backlog drains behind them. Nil: the backlog's turn.
    ///
    /// The tracker's filtering still holds: the filter kept these positions spaced from the ones
    /// before them, and the spacing guard judges a backlog row by the newest position sent, as
    /// the tracker does (see `TrackerSpacingGuard`).
    private func liveBatch(_ configuration: Configuration, _ limits: DestinationLimits, at now: ContinuousClock.Instant)
        async throws(SpoolError) -> [SpooledPosition]?
    {
        guard limits.livesFirst, spool.unsent > limits.batchSize else { return nil }
        let mark = state.withLock { $0.liveMark }
        let live = try await spool.peekNewest(limit: limits.batchSize, after: mark)
        guard let first = live.first, let newest = live.last?.location.time else { return nil }
        let goes = state.withLock { s in
            s.schedule.liveBatchGoes(at: now, oldestAge: first.location.time.seconds(to: wallClock()),
                                     interval: currentUploadInterval, full: live.count == limits.batchSize)
        }
        guard goes else {
            await spool.release(live.map(\.id))
            return nil
        }
        state.withLock { $0.liveMark = max($0.liveMark ?? newest, newest) }
        return live
    }
}
