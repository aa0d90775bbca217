import TrackingCore

/// The uploader's own request rate under a quota it shares with devices it cannot see: the
/// account's BatchUpdateDevicePosition quota is one bucket for the whole fleet, and a throttled
/// answer is the only word any device gets about the others. Pure, with the instants passed in.
///
/// - It starts at the ceiling (`max-request-rate`, with the uploader's headroom): a device alone
///   on its account drains a backlog at full speed.
/// - A throttled answer to a request sent after the last cut lowers the rate: to a quarter the
///   first time in an episode (a fleet that comes back together overshoots the quota many times
///   over at once, and each device learns it only from its own answers), by half after that.
///   Answers to requests that were already under way when the rate was cut do not cut again.
/// - Each answered request raises it by `additive` requests/s plus `proportional` of itself per
///   second since the last raise, the proportional part growing with the time since the last
///   throttled answer (one more share every `speedsUp`): the fixed part lets devices at a fleet's
///   small share converge to equal shares; the growing part brings a device whose quota has
///   room again (a lone one after a passing storm, or the last of a fleet) back to its ceiling
///   within a minute or two, however far down the storm drove it.
/// - An episode ends after `episodeEnds` without a throttled answer; the next cut is a quarter again.
///
/// In a fleet of N devices at equal shares, each cut removes about 1/(2N) of the fleet's rate,
/// and the fleet's rate grows by N × `additive` a second, so the throttled share of requests stays
/// near 2 N² × additive / quota² before the proportional part adds its own: 13 % for 40 devices
/// on a 10 requests/s quota with the values below, and the fleet benchmark measures 20 %
/// (BENCHMARKS.md). No constants bring it to a few per cent at a drain near the quota's bound:
/// devices that learn their share only from throttled answers cannot have both
/// (`Benchmarks/quota-window-model`).
///
/// With a `share` (`quota-share`: the operator has divided the account's quota among the fleet)
/// the rate is fixed at `shareHeadroom` of it and a throttled answer changes nothing but the
/// moment of the next send: the fleet's requests come at one rhythm, each device keeps the phase
/// at which it was served, and one that met a full window goes again a moment later (a new
/// phase), until every device holds a place of its own in the window. A cut would break the
/// rhythm that makes those places last. A share the quota cannot give (the fleet grew, or the
/// shares add up to more than the quota) would keep a device sliding several times a second, so
/// `overrun` of the last answers throttled gives the share up: the rate adapts from there
/// (`Cut.shareOverrun`), until a new share is set.
public struct RequestRate: Sendable, Equatable {
    /// The requests a second allowed now.
    public private(set) var current: Double
    /// The most it may reach: `max-request-rate` with headroom, or under a `share`, the rate the
    /// share gives if that is lower.
    public var ceiling: Double { share.map { min(maximum, $0 * Self.shareHeadroom) } ?? maximum }
    /// `quota-share` in requests/s; nil: the rate adapts to throttled answers.
    public private(set) var share: Double?
    /// A share is used to 90 %: arrivals jitter by some milliseconds, and a fleet whose devices
    /// each take their whole share leaves the window no place for a device that must move
    /// (`Benchmarks/quota-window-model`: at 90 % a fleet that keeps its phases drains within
    /// 1.12x the bound with 2–5 % throttled).
    public static let shareHeadroom = 0.9
    /// The pause before a request throttled under a share goes again: 50 ms plus up to 350 ms,
    /// a few tenths of the quota's one-second window, so that the device looks for a place near
    /// its old one rather than a whole period later.
    public static let slide = (least: 0.05, spread: 0.35)
    /// A share is given up when this many of the last answers were throttled. In the window
    /// model a fleet at 90 % of its quota meets at most about 8 of 20 on any device; shares 5 %
    /// over the quota reach 19–20 within 20 s.
    public static let overrun = (throttled: 14, of: 20)
    /// Requests a second added per second of answered requests.
    public var additive = 0.004
    /// Share of itself added per second of answered requests, at first.
    public var proportional = 0.01
    /// The proportional rise grows by its own size every this long without a throttled answer.
    public var speedsUp: Duration = .seconds(10)
    /// Never below one request in 20 s: a device with a backlog keeps asking.
    public static let floor = 0.05
    /// Quiet this long after a throttled answer, the next one starts a new episode.
    public var episodeEnds: Duration = .seconds(120)

    /// `max-request-rate` with headroom.
    private var maximum: Double
    /// Under a share, the last `overrun.of` answers, newest in the lowest bit, set when throttled.
    private var recent: UInt32 = 0
    private var lastCut: ContinuousClock.Instant?
    private var lastRaise: ContinuousClock.Instant?

    /// `share`: `quota-share`, nil or 0 for none.
    public init(ceiling: Double, share: Double? = nil) {
        maximum = max(ceiling, Self.floor)
        self.share = share.flatMap { $0 > 0 ? $0 : nil }
        current = 0
        current = self.ceiling
    }

    /// Whether the rate stands below its ceiling because of throttling.
    public var isLowered: Bool { current < ceiling }

    /// A new ceiling (a reload of `max-request-rate`): the rate keeps what it learned, under it.
    public mutating func setCeiling(_ value: Double) {
        let wasAtCeiling = current >= ceiling
        maximum = max(value, Self.floor)
        current = wasAtCeiling || share != nil ? ceiling : min(current, ceiling)
    }

    /// A new `quota-share` (a reload; nil or 0: none). Taken away, the rate starts again from
    /// its ceiling and adapts.
    public mutating func setShare(_ value: Double?) {
        share = value.flatMap { $0 > 0 ? $0 : nil }
        recent = 0
        current = ceiling
        lastCut = nil
        lastRaise = nil
    }

    /// What a throttled answer did to the rate.
    public enum Cut: Sendable, Equatable {
        /// Nothing: the request was under way when the rate was last cut.
        case none
        /// Halved.
        case lowered
        /// Quartered: the first throttled answer after a quiet spell.
        case episodeBegins
        /// Nothing to the rate: under a share the answer says that this send met a full window,
        /// so the request goes again after `slide` and the device's rhythm goes on from there.
        case slides
        /// The share was given up (`overrun`), and the rate quartered as at an episode's start.
        case shareOverrun
    }

    /// A throttled answer, to a request sent at `sent`.
    @discardableResult
    public mutating func throttled(sent: ContinuousClock.Instant, at now: ContinuousClock.Instant) -> Cut {
        if share != nil {
            recent = (recent << 1 | 1) & Self.recentMask
            guard recent.nonzeroBitCount >= Self.overrun.throttled else { return .slides }
            share = nil
            recent = 0
            lastCut = nil
            _ = throttled(sent: sent, at: now)
            return .shareOverrun
        }
        // The bucket at the new rate already spaces requests that went out after the cut; the
        // answers to those sent before it say nothing new.
        if let lastCut, sent < lastCut { return .none }
        let newEpisode = lastCut.map { now - $0 >= episodeEnds } ?? true
        current = max(Self.floor, current * (newEpisode ? 0.25 : 0.5))
        lastCut = now
        lastRaise = now
        return newEpisode ? .episodeBegins : .lowered
    }

    /// An answered request (not throttled) at `now`: the rate grows with the time since the last
    /// raise, counted at most 10 s (an idle stretch is no evidence of room in the quota).
    public mutating func answered(at now: ContinuousClock.Instant) {
        defer { lastRaise = now }
        if share != nil { recent = (recent << 1) & Self.recentMask }
        guard share == nil, let lastRaise, current < ceiling else { return }
        let elapsed = min(max(0, (now - lastRaise).seconds), 10)
        let quiet = lastCut.map { max(0, (now - $0).seconds) } ?? 0
        let share = proportional * (1 + quiet / speedsUp.seconds)
        current = min(ceiling, current + (additive + share * current) * elapsed)
    }

    private static let recentMask: UInt32 = (1 << UInt32(overrun.of)) - 1

    /// A rate as the log and status show it: `2.4`, `0.31` (one decimal, two below 1).
    public static func text(_ value: Double) -> String {
        value >= 1 ? String((value * 10).rounded() / 10) : String((value * 100).rounded() / 100)
    }

    /// The pause before a throttled request goes again: a random part of the interval at the new
    /// rate (`unit` in [0, 1)), so that devices throttled together do not come back together, or
    /// under a share the `slide`; never sooner than the service asked.
    public func retryDelay(retryAfter: Double?, unit: Double) -> Double {
        let own = share == nil ? (0.5 + unit) / current : Self.slide.least + Self.slide.spread * unit
        return max(retryAfter ?? 0, own)
    }
}
