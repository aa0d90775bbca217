import AWSLocation
import TrackingCore

/// What the uploader tells the operator: state changes and summaries, never a line per request.
public enum UploaderEvent: Sendable, Equatable, CustomStringConvertible {
    /// Requests started failing (network, throttling, service errors); retrying with backoff.
    case failing(String, retryIn: Double)
    /// A configuration problem the operator must fix (credentials, permissions, tracker name,
    /// clock); retried slowly, the queue is kept.
    case misconfigured(String, retryIn: Double)
    /// Uploads work again after failing.
    case recovered(afterFailures: Int)
    /// Progress while draining a backlog.
    case backlog(queued: Int, oldest: FixTime?, ratePerSecond: Double, now: FixTime)
    /// The backlog is gone.
    case drained(uploaded: Int, seconds: Double)
    /// The tracker refused positions for good; they are in the dead-letter table.
    case deadLettered(count: Int, code: String, message: String)
    /// Queued positions the tracker's filtering would not store were not sent.
    case withheld(count: Int, filtering: TrackerFiltering)
    /// The tracker throttled a request (the account's quota, shared by the fleet, is full): the
    /// uploader's own rate came down to `rate` requests a second. Said once an episode.
    case throttled(rate: Double, ceiling: Double)
    /// Under `quota-share`, most of the last requests were throttled (`RequestRate.overrun`): the
    /// share is more than the quota leaves, so it was given up and the rate, now `rate`, adapts.
    case quotaShareOverrun(share: Double, rate: Double)

    public var isWarning: Bool {
        switch self {
        case .failing, .misconfigured, .deadLettered, .quotaShareOverrun: return true
        default: return false
        }
    }

    public var description: String {
        switch self {
        case let .failing(reason, retry):
            return "uploads failing: \(reason); retrying in \(Int(retry.rounded())) s"
        case let .misconfigured(reason, retry):
            return "uploads blocked: \(reason); positions stay queued, retrying every \(Int(retry)) s"
        case let .recovered(failures):
            return "uploads recovered after \(failures) failed attempts"
        case let .backlog(queued, oldest, rate, now):
            let age = oldest.map { " oldest " + Self.age($0.seconds(to: now)) } ?? ""
            return "backlog \(Self.grouped(queued)) positions,\(age), draining at \(Int(rate.rounded()))/s"
        case let .drained(uploaded, seconds):
            return "backlog drained: \(Self.grouped(uploaded)) positions uploaded in \(Self.age(seconds))"
        case let .deadLettered(count, code, message):
            return "tracker refused \(count) position(s) for good (\(code): \(message)); kept in the dead-letter table"
        case let .withheld(count, filtering):
            return "did not send \(count) queued position(s) the tracker's \(filtering) filtering would not store"
        case let .throttled(rate, ceiling):
            return "the tracker throttles this account's requests (one quota for the whole fleet): sending at most "
                + RequestRate.text(rate) + " requests/s, rising back towards max-request-rate (" + RequestRate.text(ceiling)
                + ") while answers come; if it lasts, raise the account's BatchUpdateDevicePosition quota"
        case let .quotaShareOverrun(share, rate):
            return "quota-share " + RequestRate.text(share) + " requests/s is more than the account's quota leaves this box: "
                + "\(RequestRate.overrun.throttled) of the last \(RequestRate.overrun.of) requests were throttled; the rate adapts "
                + "from here (now " + RequestRate.text(rate) + " requests/s) until quota-share changes. Set it to the "
                + "BatchUpdateDevicePosition quota over the boxes that may drain at once, or to 0"
        }
    }

    /// `3 d 4 h`, `5 h 12 min`, `42 s`.
    static func age(_ seconds: Double) -> String {
        let s = Int(max(0, seconds))
        if s >= 86_400 { return "\(s / 86_400) d \(s % 86_400 / 3600) h" }
        if s >= 3600 { return "\(s / 3600) h \(s % 3600 / 60) min" }
        if s >= 60 { return "\(s / 60) min \(s % 60) s" }
        return "\(s) s"
    }

    /// `52,310`.
    static func grouped(_ n: Int) -> String {
        let digits = String(n)
        var out = ""
        for (i, c) in digits.enumerated() {
            if i > 0, (digits.count - i) % 3 == 0 { out.append(",") }
            out.append(c)
        }
        return out
    }
}
