#if canImport(Glibc)
import Glibc
#endif

/// Distances and directions on the WGS84 sphere approximation, good to well under a metre over the
/// few kilometres a filter decision spans.
public enum Geodesy {
    /// Mean Earth radius, metres.
    public static let earthRadius = 6_371_008.8

    /// Great-circle distance in metres (haversine).
    public static func distance(_ a: (latitude: Double, longitude: Double), _ b: (latitude: Double, longitude: Double)) -> Double {
        let p1 = a.latitude * .pi / 180, p2 = b.latitude * .pi / 180
        let dp = p2 - p1, dl = (b.longitude - a.longitude) * .pi / 180
        let h = sin(dp / 2) * sin(dp / 2) + cos(p1) * cos(p2) * sin(dl / 2) * sin(dl / 2)
        return 2 * earthRadius * asin(min(1, h.squareRoot()))
    }

    /// Distance in metres between two locations.
    public static func distance(_ a: Location, _ b: Location) -> Double {
        distance((a.latitude, a.longitude), (b.latitude, b.longitude))
    }

    /// The smallest difference between two directions in degrees, 0...180 (359° and 1° are 2° apart).
    public static func angleBetween(_ a: Double, _ b: Double) -> Double {
        let d = abs(a - b).truncatingRemainder(dividingBy: 360)
        return d > 180 ? 360 - d : d
    }
}

/// A local east/north plane in metres around an origin (equirectangular), for segment geometry.
public struct LocalPlane: Sendable {
    public let originLatitude: Double
    public let originLongitude: Double
    private let metresPerDegreeLatitude: Double
    private let metresPerDegreeLongitude: Double

    public init(latitude: Double, longitude: Double) {
        originLatitude = latitude
        originLongitude = longitude
        metresPerDegreeLatitude = Geodesy.earthRadius * .pi / 180
        metresPerDegreeLongitude = metresPerDegreeLatitude * cos(latitude * .pi / 180)
    }

    /// East and north offsets in metres of a point from the origin.
    public func project(latitude: Double, longitude: Double) -> (x: Double, y: Double) {
        var dLon = longitude - originLongitude
        if dLon > 180 { dLon -= 360 } else if dLon < -180 { dLon += 360 }
        return (dLon * metresPerDegreeLongitude, (latitude - originLatitude) * metresPerDegreeLatitude)
    }

    public func project(_ location: Location) -> (x: Double, y: Double) {
        project(latitude: location.latitude, longitude: location.longitude)
    }

    /// Distance in metres from point `p` to the segment `a`–`b` (all in plane coordinates).
    public static func distance(from p: (x: Double, y: Double), toSegment a: (x: Double, y: Double), _ b: (x: Double, y: Double)) -> Double {
        squaredDistance(from: p, toSegment: a, b).squareRoot()
    }

    /// The square of `distance(from:toSegment:)`, for comparing many distances with one root.
    @inline(__always)
    public static func squaredDistance(from p: (x: Double, y: Double), toSegment a: (x: Double, y: Double), _ b: (x: Double, y: Double)) -> Double {
        let dx = b.x - a.x, dy = b.y - a.y
        let lengthSquared = dx * dx + dy * dy
        var t = 0.0
        if lengthSquared > 0 {
            t = max(0, min(1, ((p.x - a.x) * dx + (p.y - a.y) * dy) / lengthSquared))
        }
        let cx = a.x + t * dx - p.x, cy = a.y + t * dy - p.y
        return cx * cx + cy * cy
    }
}
