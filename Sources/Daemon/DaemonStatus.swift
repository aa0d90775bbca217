import SystemIO
import TrackingCore
import Uploader

/// What the running daemon publishes in `<state-dir>/status.json` for `gpstrackd status`, and
/// as Prometheus text in `metrics-file`.
public struct DaemonStatus: Codable, Sendable, Equatable {
    public struct GPSD: Codable, Sendable, Equatable {
        public var connected: Bool
        public var endpoint: String
    }

    public struct Fix: Codable, Sendable, Equatable {
        public var time: String
        public var mode: String
        public var latitude: Double
        public var longitude: Double
        /// The horizontal accuracy reported to the tracker, metres.
        public var horizontalAccuracy: Double?
        /// gpsd's figure where the one reported is the receiver's own GST (`accuracy-source =
        /// gst` and a receiver that sends it); nil where gpsd's is the one reported. So an
        /// operator sees which an AccuracyBased tracker spaces the points by.
        public var filterAccuracy: Double?

        /// The fix as status shows it.
        init(_ location: Location) {
            time = location.time.iso8601
            mode = location.mode.description
            latitude = location.latitude
            longitude = location.longitude
            horizontalAccuracy = location.horizontalAccuracy
            filterAccuracy = location.filterAccuracyApart
        }

        /// What the summary says of the accuracy: its figure and whose it is.
        var accuracyText: String? {
            guard let horizontalAccuracy else { return nil }
            let reported = "accuracy \(Self.metres(horizontalAccuracy))"
            guard let filterAccuracy else { return reported + " (gpsd's)" }
            return reported + " (the receiver's GST; gpsd's \(Self.metres(filterAccuracy)))"
        }

        private static func metres(_ value: Double) -> String {
            let figure = value < 10 ? "\((value * 10).rounded() / 10)" : "\(Int(value.rounded()))"
            return figure + " m"
        }
    }

    public struct Filter: Codable, Sendable, Equatable {
        public var `in`: Int
        public var kept: Int
        public var rejected: [String: Int]
    }

    public struct SpoolState: Codable, Sendable, Equatable {
        public var queued: Int
        public var oldest: String?
        public var deadLetters: Int
        public var evictions: Int64
        /// Positions waiting in memory for room on a full disk.
        public var heldInMemory: Int
        /// Positions that found no room on disk when they came (since start).
        public var storeFailures: Int64
    }

    public struct Upload: Codable, Sendable, Equatable {
        public var sink: String
        public var uploaded: Int
        public var lastSuccess: String?
        public var lastError: String?
        /// The tracker sink's requests, those throttled (the account's quota was full), and the
        /// requests a second the uploader allows itself now with its ceiling; nil for the file.
        public var requests: Int?
        public var throttled: Int?
        public var requestRate: Double?
        public var maxRequestRate: Double?
        /// `quota-share` while in force: the rate stands at 90 % of it and throttling does not
        /// lower it (nil without one, or once given up).
        public var quotaShare: Double?
        /// Bytes on the wire this UTC day, and `data-budget` (0: none); nil for the file.
        public var bytesToday: Int?
        public var dataBudget: Int?

        /// The share of requests throttled, 0 to 1.
        public var throttledShare: Double? {
            guard let requests, let throttled, requests > 0 else { return nil }
            return Double(throttled) / Double(requests)
        }
    }

    /// The tracker's PositionFiltering as gpstrackd knows it, and what it held back for it.
    public struct TrackerState: Codable, Sendable, Equatable {
        /// TimeBased, DistanceBased, AccuracyBased or none; nil with the file sink.
        public var filtering: String?
        /// configured, DescribeTracker, assumed (the service's default), last known.
        public var source: String?
        /// Points the filter held back (a better allowed one kept instead) and queued positions
        /// not sent, because the tracker would not have stored them.
        public var withheld: Int
        /// With `tracker-filtering auto`: when the tracker last answered DescribeTracker (UTC), and,
        /// while asking it again fails, why (the mode shown is then that answer's, or a guess).
        public var answered: String?
        public var askFailure: String?
    }

    public struct CredentialsState: Codable, Sendable, Equatable {
        public var source: String?
        public var expires: String?
    }

    public var pid: Int32
    public var updated: String
    public var gpsd: GPSD
    public var lastFix: Fix?
    public var filter: Filter
    public var spool: SpoolState
    public var upload: Upload
    public var tracker: TrackerState
    public var credentials: CredentialsState

    public func json() -> String {
        (try? JSONCoder.encode(self)).map { String(decoding: $0, as: UTF8.self) } ?? "{}"
    }

    public static func decode(_ text: String) -> DaemonStatus? {
        try? JSONCoder.decode(DaemonStatus.self, from: Array(text.utf8))
    }

    /// Where the daemon publishes it in its state directory.
    public static func path(in directory: String) -> String { directory + "/status.json" }

    /// The last status published in `directory`; nil when there is none or it cannot be read.
    public static func load(from directory: String) -> DaemonStatus? {
        (try? SmallFile.read(path(in: directory))).flatMap(decode)
    }

    /// The human summary of `gpstrackd status`.
    public var summary: String {
        var lines: [String] = []
        lines.append("gpsd: " + (gpsd.connected ? "connected (\(gpsd.endpoint))" : "not connected (\(gpsd.endpoint))"))
        if let fix = lastFix {
            lines.append("last fix: \(fix.mode) at \(fix.time), \(fix.latitude), \(fix.longitude)" + (fix.accuracyText.map { ", " + $0 } ?? ""))
        } else {
            lines.append("last fix: none yet")
        }
        let rejected = filter.rejected.keys.sorted().map { "\($0)=\(filter.rejected[$0]!)" }.joined(separator: " ")
        lines.append("filter: \(filter.in) fixes in, \(filter.kept) kept, rejected: \(rejected.isEmpty ? "none" : rejected)")
        lines.append("spool: \(spool.queued) queued" + (spool.oldest.map { ", oldest \($0)" } ?? "")
            + ", \(spool.deadLetters) dead letters, \(spool.evictions) evicted"
            + (spool.heldInMemory > 0 ? ", \(spool.heldInMemory) waiting in memory for disk space" : "")
            + (spool.storeFailures > 0 ? ", \(spool.storeFailures) found no room on disk" : ""))
        lines.append("upload (\(upload.sink)): \(upload.uploaded) uploaded, last success \(upload.lastSuccess ?? "never")"
            + (upload.lastError.map { ", last error: \($0)" } ?? ""))
        if let requests = upload.requests, let rate = upload.requestRate, let ceiling = upload.maxRequestRate {
            let share = upload.throttledShare.map { " (\(Int(($0 * 100).rounded())) %)" } ?? ""
            lines.append("requests: \(requests), \(upload.throttled ?? 0) throttled\(share); rate \(RequestRate.text(rate))/s"
                + (rate < ceiling ? " (lowered by throttling; at most \(RequestRate.text(ceiling))/s)" : "")
                + (upload.quotaShare.map { " (90 % of quota-share \(RequestRate.text($0))/s)" } ?? ""))
        }
        if let bytes = upload.bytesToday {
            let budget = upload.dataBudget ?? 0
            lines.append("data today (UTC): \(bytes) bytes" + (budget > 0 ? " of a budget of \(budget)" : ""))
        }
        if let filtering = tracker.filtering {
            lines.append("tracker filtering: \(filtering)" + (tracker.source.map { " (\($0))" } ?? "") + ", \(tracker.withheld) withheld"
                + (tracker.answered.map { ", last answered \($0)" } ?? "")
                + (tracker.askFailure.map { "; asking again fails: \($0)" } ?? ""))
        }
        if let source = credentials.source {
            lines.append("credentials: \(source)" + (credentials.expires.map { ", expire \($0)" } ?? ""))
        }
        lines.append("updated \(updated) by pid \(pid)")
        return lines.joined(separator: "\n")
    }

    /// Prometheus text format (node_exporter textfile collector).
    public var metrics: String {
        var out = ""
        func metric(_ name: String, _ type: String, _ help: String, _ samples: [(String, Double)]) {
            out += "# HELP gpstrackd_\(name) \(help)\n# TYPE gpstrackd_\(name) \(type)\n"
            for (labels, value) in samples { out += "gpstrackd_\(name)\(labels) \(value)\n" }
        }
        metric("gpsd_connected", "gauge", "1 when connected to gpsd.", [("", gpsd.connected ? 1 : 0)])
        metric("fixes_total", "counter", "Fixes read from gpsd.", [("", Double(filter.in))])
        metric("kept_total", "counter", "Fixes kept by the filter.", [("", Double(filter.kept))])
        metric("rejected_total", "counter", "Fixes rejected by the quality gate.",
               filter.rejected.keys.sorted().map { ("{reason=\"\($0)\"}", Double(filter.rejected[$0]!)) })
        metric("uploaded_total", "counter", "Positions accepted by the tracker.", [("", Double(upload.uploaded))])
        if let requests = upload.requests, let throttled = upload.throttled, let rate = upload.requestRate {
            metric("requests_total", "counter", "Requests sent to the tracker.", [("", Double(requests))])
            metric("throttled_requests_total", "counter", "Requests the tracker throttled (the account's quota was full).",
                   [("", Double(throttled))])
            metric("request_rate", "gauge", "Requests a second the uploader allows itself now (lowered by throttling).", [("", rate)])
            if let share = upload.quotaShare {
                metric("quota_share", "gauge", "The quota-share key: this box's part of the account's request quota, requests a second.",
                       [("", share)])
            }
        }
        if let bytes = upload.bytesToday {
            metric("bytes_today", "gauge", "Bytes on the wire to the tracker this UTC day.", [("", Double(bytes))])
            metric("data_budget_bytes", "gauge", "The data-budget key: bytes a UTC day (0: none).", [("", Double(upload.dataBudget ?? 0))])
        }
        metric("withheld_total", "counter", "Points not kept or not sent because the tracker's filtering would not store them.",
               [("", Double(tracker.withheld))])
        if let filtering = tracker.filtering {
            metric("tracker_filtering", "gauge", "The tracker's PositionFiltering (1 for the mode in force).", [("{mode=\"\(filtering)\"}", 1)])
        }
        metric("spool_queued", "gauge", "Positions waiting for upload.", [("", Double(spool.queued))])
        metric("spool_dead_letters", "gauge", "Positions the tracker refused for good.", [("", Double(spool.deadLetters))])
        metric("spool_evictions_total", "counter", "Positions dropped to stay within the spool's caps.", [("", Double(spool.evictions))])
        metric("spool_held_in_memory", "gauge", "Positions waiting in memory for room on a full disk.", [("", Double(spool.heldInMemory))])
        metric("spool_store_failures_total", "counter", "Positions that found no room on disk when they came.",
               [("", Double(spool.storeFailures))])
        if let fix = lastFix, let time = FixTime(iso8601: fix.time) {
            metric("last_fix_timestamp_seconds", "gauge", "Receiver time of the last fix.", [("", time.secondsSince1970)])
        }
        return out
    }
}
