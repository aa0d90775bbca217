import AWSLocation
import Glibc
import Spool
import TrackingCore
import Uploader

/// Gathers what the daemon publishes (status.json, the metrics, `STATUS=`, the SIGUSR1 line) from
/// the parts that know it: one `DaemonStatus` value, so every view shows the same figures.
struct StatusReport: Sendable {
    var gpsd: String
    var sink: DaemonConfiguration.Sink
    var live: LiveState
    var uploader: Uploader
    var filtering: TrackerFilteringService?
    var credentials: RefreshingCredentials?
    var credentialSource: String?
    var wallClock: @Sendable () -> FixTime = SystemClock.now

    /// The status now; `stats` are the spool's (the caller often has them already).
    func status(_ stats: SpoolStatistics?) async -> DaemonStatus {
        let expires = await credentials?.expiration
        let upload = uploader.statistics
        let snapshot = live.snapshot
        let withheld = snapshot.filter.withheld + (upload.withheld)
        return DaemonStatus(
            pid: getpid(), updated: wallClock().iso8601,
            gpsd: .init(connected: snapshot.connected, endpoint: gpsd),
            lastFix: snapshot.lastFix.map(DaemonStatus.Fix.init),
            filter: .init(in: snapshot.filter.fixesIn, kept: snapshot.filter.keptTotal,
                          rejected: Dictionary(uniqueKeysWithValues: snapshot.filter.rejected.map { ($0.key.rawValue, $0.value) })),
            spool: .init(queued: stats?.queued ?? 0, oldest: stats?.oldest?.iso8601, deadLetters: stats?.deadLetters ?? 0,
                         evictions: stats?.evictions ?? 0, heldInMemory: stats?.heldInMemory ?? 0, storeFailures: stats?.storeFailures ?? 0),
            upload: uploadState(upload),
            tracker: .init(filtering: filtering?.snapshot.filtering.rawValue, source: filtering?.snapshot.source.rawValue, withheld: withheld,
                           answered: filtering?.lastAsked.answered?.iso8601, askFailure: filtering?.lastAsked.failure),
            credentials: .init(source: credentialSource, expires: expires?.iso8601))
    }
}

extension StatusReport {
    private func uploadState(_ upload: Uploader.Statistics) -> DaemonStatus.Upload {
        var state = DaemonStatus.Upload(sink: sink.rawValue, uploaded: upload.uploaded,
                                        lastSuccess: upload.lastSuccess?.iso8601, lastError: upload.lastError)
        if sink == .awsLocation {
            state.requests = upload.requests
            state.throttled = upload.throttledRequests
            state.requestRate = upload.requestRate
            state.maxRequestRate = upload.requestRateCeiling
            state.quotaShare = upload.quotaShare
            state.bytesToday = upload.bytesToday
            state.dataBudget = uploader.configuration.dataBudget
        }
        return state
    }
}

extension DaemonStatus {
    /// The one-line state systemd shows (`STATUS=`): the fix, the queue, the last delivery, and
    /// the tracker's mode with what was withheld for it.
    func serviceStatus(at now: FixTime) -> String {
        var line = gpsd.connected ? (lastFix.map { "\($0.mode.uppercased()) fix" } ?? "no fix") : "gpsd not connected"
        line += ", \(spool.queued) queued"
        let last = upload.lastSuccess.flatMap(FixTime.init(iso8601:))
        line += (upload.sink == DaemonConfiguration.Sink.file.rawValue ? ", last written " : ", last upload ")
            + (last.map { "\(Int(max(0, $0.seconds(to: now)))) s ago" } ?? "never")
        if let filtering = tracker.filtering { line += ", tracker \(filtering), \(tracker.withheld) withheld" }
        if let rate = upload.requestRate, let ceiling = upload.maxRequestRate, rate < ceiling {
            line += ", throttled: \(RequestRate.text(rate)) requests/s"
        }
        return line
    }
}
