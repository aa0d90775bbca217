/// One position of the vehicle: the common model every stage of gpstrackd speaks.
///
/// Unknown is `nil`, never NaN and never negative where the quantity cannot be: the initializer
/// enforces this at the boundary, so later stages can trust every value they see. A location is
/// plain bytes, 240 of them (`Reading`, `DevicePath`): every stage of the filter copies it.
/// `time` is the receiver's fix time, never the time the position was read or uploaded.
public struct Location: Sendable, Equatable, BitwiseCopyable {
    /// Fix time from the receiver (UTC).
    public var time: FixTime
    /// 2D or 3D fix.
    public var mode: FixMode
    /// `filterAccuracy` where it differs from `horizontalAccuracy`, -1 where it does not (not NaN,
    /// so that equal locations compare equal). A `Float` declared beside `mode`, it fills the
    /// bytes the mode leaves before the latitude, so a location stays 240 bytes.
    private var separateFilterAccuracy: Float = -1
    /// Degrees north, -90...90.
    public var latitude: Double
    /// Degrees east, -180...180.
    public var longitude: Double
    /// Metres above mean sea level (geoid).
    @Reading public var altitudeMSL: Double?
    /// Metres above the WGS84 ellipsoid.
    @Reading public var altitudeHAE: Double?
    /// Course over ground, degrees from true north, 0..<360.
    @Reading public var course: Double?
    /// Speed over ground, m/s.
    @Reading public var speed: Double?
    /// Vertical speed, m/s (negative when descending).
    @Reading public var climb: Double?
    /// True heading of the vehicle (where it points, not where it moves), degrees, 0..<360.
    @Reading public var heading: Double?
    /// Horizontal position error estimate, metres: the figure gpstrackd reports and the tracker
    /// stores (an AccuracyBased tracker spaces its points by it).
    @Reading public var horizontalAccuracy: Double?
    /// Vertical position error estimate, metres.
    @Reading public var verticalAccuracy: Double?
    /// Speed error estimate, m/s.
    @Reading public var speedAccuracy: Double?
    /// Course error estimate, degrees.
    @Reading public var courseAccuracy: Double?
    /// The horizontal error the filter judges the fix by: the quality gate's `max-accuracy`, and
    /// how far apart two fixes can lie and still be of one place (`accuracies(with:)`). gpsd's
    /// own figure where the one reported is the receiver's (`accuracy-source = gst`), else
    /// `horizontalAccuracy`.
    ///
    /// Why two: a receiver's GST says a third to three quarters of what gpsd 3.22 makes of the
    /// HDOP. Judged by it, the gate let in fixes 12-16 m off the road that gpsd's figure kept
    /// out; reported, it lets an AccuracyBased tracker store points a third as far apart. So the
    /// filter judges as it always has, and only what the tracker is told changes.
    public var filterAccuracy: Double? {
        // To the millimetre, gpsd's own precision: a `Float` holds that below 8 km.
        get { separateFilterAccuracy < 0 ? horizontalAccuracy : (Double(separateFilterAccuracy) * 1000).rounded() / 1000 }
        set {
            guard let value = Self.nonNegative(newValue), value != horizontalAccuracy else {
                separateFilterAccuracy = -1
                return
            }
            separateFilterAccuracy = Float(value)
        }
    }

    /// `filterAccuracy` where it is not the reported figure (the receiver's GST reported, gpsd's
    /// judged by); nil where the two are one: what watch, status and the advice show beside it.
    public var filterAccuracyApart: Double? {
        filterAccuracy == horizontalAccuracy ? nil : filterAccuracy
    }

    /// The gpsd device path that produced the fix, e.g. `/dev/ttyACM0`; an empty one is none.
    public var device: String? {
        get { devicePath.isEmpty ? nil : devicePath.description }
        set { devicePath = newValue.map(DevicePath.init) ?? DevicePath() }
    }
    /// The same, held inline (`DevicePath`), so that a location is copied as plain bytes.
    private var devicePath = DevicePath()

    /// Builds a location, cleaning every optional value: non-finite values become `nil`;
    /// negative course, speed, heading and accuracies become `nil`; course and heading are
    /// wrapped into 0..<360. Returns `nil` when latitude or longitude is not finite or out of range.
    public init?(
        time: FixTime,
        mode: FixMode,
        latitude: Double,
        longitude: Double,
        altitudeMSL: Double? = nil,
        altitudeHAE: Double? = nil,
        course: Double? = nil,
        speed: Double? = nil,
        climb: Double? = nil,
        heading: Double? = nil,
        horizontalAccuracy: Double? = nil,
        verticalAccuracy: Double? = nil,
        speedAccuracy: Double? = nil,
        courseAccuracy: Double? = nil,
        filterAccuracy: Double? = nil,
        device: String? = nil
    ) {
        guard latitude.isFinite, longitude.isFinite,
              (-90.0...90.0).contains(latitude), (-180.0...180.0).contains(longitude)
        else { return nil }
        self.time = time
        self.mode = mode
        self.latitude = latitude
        self.longitude = longitude
        self.altitudeMSL = Self.finite(altitudeMSL)
        self.altitudeHAE = Self.finite(altitudeHAE)
        self.course = Self.angle(course)
        self.speed = Self.nonNegative(speed)
        self.climb = Self.finite(climb)
        self.heading = Self.angle(heading)
        self.horizontalAccuracy = Self.nonNegative(horizontalAccuracy)
        self.verticalAccuracy = Self.nonNegative(verticalAccuracy)
        self.speedAccuracy = Self.nonNegative(speedAccuracy)
        self.courseAccuracy = Self.nonNegative(courseAccuracy)
        self.device = device
        if let filterAccuracy { self.filterAccuracy = filterAccuracy }
    }

    /// `value` when it is finite, else `nil`.
    @inlinable
    public static func finite(_ value: Double?) -> Double? {
        guard let value, value.isFinite else { return nil }
        return value
    }

    /// `value` when it is finite and not negative, else `nil`.
    @inlinable
    public static func nonNegative(_ value: Double?) -> Double? {
        guard let value, value.isFinite, value >= 0 else { return nil }
        return value
    }

    /// A direction in degrees: `nil` when negative or not finite, else wrapped into 0..<360.
    @inlinable
    public static func angle(_ value: Double?) -> Double? {
        guard let value = nonNegative(value) else { return nil }
        return value < 360 ? value : value.truncatingRemainder(dividingBy: 360)
    }

    /// Whether the vehicle stands at this fix: a speed reported and no faster than
    /// `stoppedSpeed` (`stopped-speed`); the fix is then the receiver's drift about its place.
    public func stands(atMost stoppedSpeed: Double) -> Bool {
        speed.map { $0 <= stoppedSpeed } ?? false
    }

    /// Both accuracies the filter judges by summed (`filterAccuracy`), a missing one counting
    /// as 0: how far apart this fix and `other` can lie and still be of one place. (The
    /// AccuracyBased tracker sums the reported ones: `TrackerFiltering.Mark`.)
    public func accuracies(with other: Location) -> Double {
        (filterAccuracy ?? 0) + (other.filterAccuracy ?? 0)
    }
}
