import TrackingCore

/// One TPV report as gpsd sent it, with libgps's NaN sentinels already turned into `nil`.
///
/// gpsd sends several TPVs per epoch, some partial; `EpochAssembler` merges them into one `Location`.
public struct TPVReport: Sendable, Equatable {
    /// gpsd's mode: 0 not seen, 1 no fix, 2 2D, 3 3D.
    public var mode: Int
    public var time: FixTime?
    public var latitude: Double?
    public var longitude: Double?
    public var altitudeMSL: Double?
    public var altitudeHAE: Double?
    public var course: Double?
    public var speed: Double?
    public var climb: Double?
    /// Estimated horizontal position error (metres).
    public var eph: Double?
    /// Longitude and latitude error estimates (metres).
    public var epx: Double?
    public var epy: Double?
    /// Vertical error estimate (metres).
    public var epv: Double?
    /// Speed error estimate (m/s).
    public var eps: Double?
    /// Course error estimate (degrees).
    public var epd: Double?
    public var device: String?

    public init(
        mode: Int, time: FixTime? = nil, latitude: Double? = nil, longitude: Double? = nil,
        altitudeMSL: Double? = nil, altitudeHAE: Double? = nil, course: Double? = nil,
        speed: Double? = nil, climb: Double? = nil, eph: Double? = nil, epx: Double? = nil,
        epy: Double? = nil, epv: Double? = nil, eps: Double? = nil, epd: Double? = nil,
        device: String? = nil
    ) {
        self.mode = mode
        self.time = time
        self.latitude = Location.finite(latitude)
        self.longitude = Location.finite(longitude)
        self.altitudeMSL = Location.finite(altitudeMSL)
        self.altitudeHAE = Location.finite(altitudeHAE)
        self.course = Location.finite(course)
        self.speed = Location.finite(speed)
        self.climb = Location.finite(climb)
        self.eph = Location.finite(eph)
        self.epx = Location.finite(epx)
        self.epy = Location.finite(epy)
        self.epv = Location.finite(epv)
        self.eps = Location.finite(eps)
        self.epd = Location.finite(epd)
        self.device = device
    }

    /// The horizontal accuracy gpstrackd reports, in metres.
    ///
    /// gpsd's `eph` (its estimated horizontal position error) when present and valid; otherwise the
    /// radial combination `sqrt(epx² + epy²)` of the longitude and latitude error estimates when
    /// both are known; otherwise unknown. gpsd documents these as "maybe 50 %, maybe 95 %"
    /// confidence depending on the receiver, so the value is an estimate, not a bound.
    public var horizontalAccuracy: Double? {
        if let eph = Location.nonNegative(eph) { return eph }
        if let epx = Location.nonNegative(epx), let epy = Location.nonNegative(epy) {
            return (epx * epx + epy * epy).squareRoot()
        }
        return nil
    }

    /// The vertical accuracy gpstrackd reports: gpsd's `epv` (metres), when valid.
    public var verticalAccuracy: Double? { Location.nonNegative(epv) }

    /// Fills every field this report lacks from `older`, the earlier report of the same epoch,
    /// and keeps the higher fix mode.
    public func merged(over older: TPVReport) -> TPVReport {
        var out = self
        out.mode = max(mode, older.mode)
        out.time = time ?? older.time
        if latitude == nil || longitude == nil {
            out.latitude = older.latitude
            out.longitude = older.longitude
        }
        out.altitudeMSL = altitudeMSL ?? older.altitudeMSL
        out.altitudeHAE = altitudeHAE ?? older.altitudeHAE
        out.course = course ?? older.course
        out.speed = speed ?? older.speed
        out.climb = climb ?? older.climb
        out.eph = eph ?? older.eph
        out.epx = epx ?? older.epx
        out.epy = epy ?? older.epy
        out.epv = epv ?? older.epv
        out.eps = eps ?? older.eps
        out.epd = epd ?? older.epd
        out.device = device ?? older.device
        return out
    }

    /// The `Location` for this report, or `nil` when it has no 2D/3D fix, no time or no valid position.
    /// Altitudes are kept only for a 3D fix (gpsd documents them as valid only then). The
    /// receiver's own `errorEstimate` for the epoch, when there is one, gives the horizontal
    /// accuracy reported in place of gpsd's, and gpsd's stays the one the quality gate judges by
    /// (`Location.filterAccuracy`).
    public func location(heading: Double?, errorEstimate: ErrorEstimate? = nil) -> Location? {
        guard let mode = FixMode(gpsdMode: mode), let time, let latitude, let longitude else { return nil }
        return Location(
            time: time,
            mode: mode,
            latitude: latitude,
            longitude: longitude,
            altitudeMSL: mode == .threeD ? altitudeMSL : nil,
            altitudeHAE: mode == .threeD ? altitudeHAE : nil,
            course: course,
            speed: speed,
            climb: mode == .threeD ? climb : nil,
            heading: heading,
            horizontalAccuracy: errorEstimate?.horizontalAccuracy ?? horizontalAccuracy,
            verticalAccuracy: mode == .threeD ? verticalAccuracy : nil,
            speedAccuracy: eps,
            courseAccuracy: epd,
            filterAccuracy: horizontalAccuracy,
            device: device
        )
    }
}
