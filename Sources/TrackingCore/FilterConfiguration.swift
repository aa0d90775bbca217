/// Every knob of the filter chain, with defaults chosen for a vehicle tracker: a faithful track
/// (corners and curves within ~10 m), few points on straight roads, one point per stop, and no
/// points from receiver drift while parked. All times are receiver fix times.
public struct FilterConfiguration: Sendable, Equatable {
    // MARK: Quality gate

    /// `min-mode`: fixes below this mode are rejected. Default 2D: a 2D fix still places a vehicle
    /// on a road map; require 3D where altitude matters.
    public var minMode: FixMode = .twoD
    /// `max-accuracy`, metres: fixes whose horizontal accuracy is worse are rejected; unknown
    /// accuracy passes. Default 50 m: worse than that a fix cannot tell adjacent streets apart.
    public var maxAccuracy: Double? = 50
    /// `max-speed`, m/s: a fix that implies a faster jump from the last accepted fix is an outlier.
    /// Default 100 m/s (360 km/h): above any road vehicle, below a multipath jump.
    public var maxSpeed: Double = 100
    /// `outlier-confirmations`: this many consecutive outliers that agree with each other mean the
    /// vehicle really is somewhere new (after a tunnel, a ferry, a tow truck). Default 3.
    public var outlierConfirmations: Int = 3
    /// `max-future`, seconds: with a synchronized system clock, fixes further ahead of it are
    /// rejected. Default 300 s: generous for clock drift, far below week-rollover errors.
    public var maxFuture: Double = 300
    /// `earliest-time`: fixes before this time are implausible (GPS week-rollover bugs move dates
    /// back by 1024 weeks). Default: this build's release date less 512 weeks, see
    /// `Version.earliestPlausibleFixTime`.
    public var earliestPlausibleTime: FixTime = Version.earliestPlausibleFixTime

    // MARK: Motion triggers

    /// `max-interval`, seconds: keep a fix at least this often while moving (decided a sixth of
    /// it later, so that a corner needed by then stands in for it; see `MotionTriggers`).
    /// Default 60 s: a live map never looks stale by much more than a minute.
    public var maxInterval: Double = 60
    /// `stationary-interval`, seconds: heartbeat while stopped. Default 900 s: proof of life
    /// without a spider web of parked points.
    public var stationaryInterval: Double = 900
    /// `max-deviation`, metres: keep the previous fix when the straight line from the last kept fix
    /// would pass farther than this from a fix seen since. Default 10 m: about a lane and a
    /// half, near the receiver's own noise; corners and curves keep their shape.
    public var maxDeviation: Double = 10
    /// `min-interval`, seconds: never keep two fixes closer in time, except motion state changes.
    /// Default 1 s.
    public var minInterval: Double = 1
    /// `min-distance`, metres (off by default): also keep a fix this far from the last kept one,
    /// when the distance also exceeds both fixes' accuracies summed.
    public var minDistance: Double?
    /// `min-angle`, degrees (off by default): also keep a fix whose course differs this much from
    /// the last kept fix's, while moving.
    public var minAngle: Double?
    /// `moving-speed`, m/s: a stopped vehicle is moving again after two consecutive fixes at least
    /// this fast. Default 2 m/s (7 km/h): well above parked-receiver noise of 0.1–0.5 m/s.
    public var movingSpeed: Double = 2.0
    /// `stopped-speed`, m/s: a moving vehicle has stopped after `stop-delay` of fixes no faster.
    /// Default 1 m/s.
    public var stoppedSpeed: Double = 1.0
    /// `stop-delay`, seconds. Default 5 s: a red light is a stop, a slow corner is not.
    public var stopDelay: Double = 5
    /// `departure-distance`, metres: a stopped vehicle is also moving once a fix is this far from
    /// the stop point and beyond both fixes' accuracies summed (for receivers that report no
    /// speed). Default 50 m: beyond parked drift.
    public var departureDistance: Double = 50

    // MARK: The tracker

    /// The tracker's `PositionFiltering`: nothing is kept that it would not store (see
    /// `TrackerSpacing`). `none` for a sink that stores everything.
    public var trackerFiltering: TrackerFiltering = .none

    public init() {}
}
