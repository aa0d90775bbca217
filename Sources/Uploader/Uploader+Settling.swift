import Spool
import TrackingCore

/// What becomes of a batch's rows: withheld before sending (the tracker would not store them),
/// acknowledged, dead-lettered, released for a retry, or bisected to find the bad ones.
extension Uploader {
    // MARK: - The tracker's filtering

    /// Acknowledges, without sending, the rows the tracker's filtering would not store after the
    /// newest position already let through; returns the rest (nil when every row goes).
    /// A row no newer than that position was let through before (a retry) and goes again; the
    /// row the tracker stored before a restart does not.
    func withholdUnstorable(_ rows: [SpooledPosition], filtering: TrackerFiltering, live: Bool = false) async -> [SpooledPosition]? {
        guard filtering != .none else { return nil }
        let (kept, withheld) = state.withLock { $0.spacing.split(rows, filtering: filtering, live: live) }
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

    /// A whole-batch validation error: halve until the bad positions stand alone.
    func bisect(_ rows: [SpooledPosition], message: String) async {
        guard rows.count > 1 else {
            await reject(rows, code: "ValidationException", message: message)
            return
        }
        let half = rows.count / 2
        await send(Array(rows[..<half]), tokenTaken: false)
        await send(Array(rows[half...]), tokenTaken: false)
    }

    /// Acts on a delivery's answer for a request sent at `sent`.
    func settle(_ rows: [SpooledPosition], outcomes: [PositionOutcome], sent: ContinuousClock.Instant) async {
        let outcome = BatchOutcome(rows, outcomes: outcomes)
        let (accepted, retry) = (outcome.stored.map(\.id), outcome.retryLater.map(\.id))
        do {
            try await spool.ack(accepted)
        } catch {
            recordFailure("spool: \(error)", retryAfter: nil, misconfigured: false)
        }
        for group in outcome.refused { await reject(group.rows, code: group.code, message: group.message) }
        await spool.release(retry)
        let newest = outcome.newestStored
        let recovered = state.withLock { s -> Int? in
            s.statistics.uploaded += accepted.count
            if let newest, s.statistics.lastStored.map({ $0.time < newest.time }) ?? true { s.statistics.lastStored = newest }
            s.statistics.lastSuccess = wallClock()
            return retry.isEmpty ? s.schedule.succeeded() : nil
        }
        if let recovered { events(.recovered(afterFailures: recovered)) }
        if outcome.throttled {
            throttled(sent: sent, retryAfter: nil, reason: "the tracker throttled \(retry.count) position(s) (ThrottlingError)",
                      served: true)
        } else if !retry.isEmpty {
            recordFailure("\(destination.name) asked to retry \(retry.count) position(s) later", retryAfter: nil, misconfigured: false, quiet: true)
        } else {
            answered()
        }
    }

    func reject(_ rows: [SpooledPosition], code: String, message: String) async {
        do {
            try await spool.reject(rows.map(\.id), code: code, message: message, at: wallClock())
            state.withLock { $0.statistics.deadLettered += rows.count }
            events(.deadLettered(count: rows.count, code: code, message: message))
        } catch {
            await spool.release(rows.map(\.id))
            recordFailure("spool: \(error)", retryAfter: nil, misconfigured: false)
        }
    }
}
