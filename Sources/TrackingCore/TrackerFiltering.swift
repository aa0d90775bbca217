/// An Amazon Location tracker's `PositionFiltering`: which updates it stores. The service applies
/// it before storing, silently (a 200 with no error entry), so a position sent against it is paid
/// for on the wire and lost from the track.
public enum TrackerFiltering: String, Sendable, CaseIterable, Codable, CustomStringConvertible {
    /// The service's default: at most one stored position per 30 s of sample time per device.
    case timeBased = "TimeBased"
    /// An update less than 30 m from the device's last stored position is ignored.
    case distanceBased = "DistanceBased"
    /// An update that moved less than the two horizontal accuracies summed is ignored (a missing
    /// accuracy counts as 0).
    case accuracyBased = "AccuracyBased"
    /// Every update is stored (a file, a test tracker).
    case none

    /// The service's spacing for TimeBased, seconds, and for DistanceBased, metres.
    public static let interval = 30.0
    public static let distance = 30.0
    /// How far beyond the distance rules' bounds a position must be, as a factor. The service does
    /// not say how it measures distance. On a sphere of the mean radius, as here, a distance can
    /// be 0.56 % longer than on the WGS84 ellipsoid (north-south at the equator, where the
    /// meridian's radius of curvature is 6,335 km), so an update 30.1 m away here could be 29.95 m
    /// to a service that measures on the ellipsoid, and be dropped silently. 0.6 % covers any
    /// such formula, at points at most 0.18 m farther apart.
    public static let formulaMargin = 1.006

    /// Whether the tracker is sure to store `next` when `last` is the device's last stored
    /// position: the distance rules with `formulaMargin`.
    public func stores(_ next: Location, after last: Location?) -> Bool {
        guard let last else { return true }
        return stores(Mark(next), after: Mark(last))
    }

    /// Whether the tracker is sure to store `next` after `last`, from the little of each that the
    /// rule reads.
    func stores(_ next: Mark, after last: Mark) -> Bool {
        switch self {
        case .none:
            return true
        case .timeBased:
            return abs(last.time.seconds(to: next.time)) >= Self.interval
        case .distanceBased, .accuracyBased:
            // The two distance rules differ only in how far the update must have moved.
            let bound = self == .distanceBased ? Self.distance : last.accuracy + next.accuracy
            return Geodesy.distance((last.latitude, last.longitude), (next.latitude, next.longitude)) >= bound * Self.formulaMargin
        }
    }

    public var description: String { rawValue }
}
