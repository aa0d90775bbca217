import TrackingCore

/// One update of BatchUpdateDevicePosition: where a device was at its fix time.
public struct DevicePositionUpdate: Sendable, Equatable {
    public var deviceID: String
    /// The receiver's fix time (`SampleTime`), never the upload time.
    public var sampleTime: FixTime
    public var longitude: Double
    public var latitude: Double
    /// `Accuracy.Horizontal`, metres, when known.
    public var horizontalAccuracy: Double?
    /// `PositionProperties`: at most `maxProperties` entries, values at most `maxPropertyLength` characters.
    public var properties: [String: String]

    /// The service model's limits on `PositionProperties`.
    public static let maxProperties = 4
    public static let maxPropertyLength = 150

    public init(deviceID: String, sampleTime: FixTime, longitude: Double, latitude: Double,
                horizontalAccuracy: Double? = nil, properties: [String: String] = [:]) {
        self.deviceID = deviceID
        self.sampleTime = sampleTime
        self.longitude = longitude
        self.latitude = latitude
        self.horizontalAccuracy = horizontalAccuracy
        self.properties = properties
    }

    /// The update for a location: position and accuracy at the precision they travel at
    /// (`WirePrecision`, what the filter's model of the tracker's rule read too), and the chosen
    /// properties (default speed and course), formatted as short strings.
    public init(deviceID: String, location: Location, properties keys: [PositionProperty] = [.speed, .course]) {
        var properties: [String: String] = [:]
        for key in keys.prefix(Self.maxProperties) {
            if let value = key.value(of: location) { properties[key.rawValue] = String(value.prefix(Self.maxPropertyLength)) }
        }
        self.init(deviceID: deviceID, sampleTime: location.time, longitude: WirePrecision.degrees(location.longitude),
                  latitude: WirePrecision.degrees(location.latitude),
                  horizontalAccuracy: location.horizontalAccuracy.map(WirePrecision.accuracy), properties: properties)
    }
}

/// Location fields that can travel as `PositionProperties`.
public enum PositionProperty: String, Sendable, CaseIterable {
    case speed, course, heading, altitude, mode, kept

    /// Speed, m/s, under which a course does not travel: a standing or creeping vehicle's course
    /// is the direction of its receiver's noise (a Doppler speed good to about 0.1 m/s is 6° off
    /// at 1 m/s and anywhere at 0.1), so a map would draw a parked vehicle facing a random way.
    /// Receivers hold their own course still below a threshold of this order (SiRF's static
    /// navigation under 5 km/h; Swift Navigation's COG freeze under a minimum velocity), and a
    /// course left out is some 15 bytes fewer on each parked point. Unknown speed leaves it in.
    static let courseSpeed = 1.0

    /// The value as it travels: to the precision a receiver has and no finer (speed to 0.1 m/s,
    /// course and heading to a degree, altitude to a metre), since every digit is paid for on
    /// the wire with every position; a receiver's speed is good to about 0.1 m/s, its altitude
    /// to metres.
    func value(of location: Location) -> String? {
        func number(_ value: Double?, _ steps: Double) -> String? {
            guard let value else { return nil }
            let rounded = (value * steps).rounded() / steps
            return rounded == rounded.rounded() ? String(Int(rounded)) : String(rounded)
        }
        // A bearing that rounds up to 360 is north, as the receiver's own 0...<360 says it.
        func bearing(_ value: Double?) -> String? { number(value.map { $0.rounded() >= 360 ? 0 : $0 }, 1) }
        switch self {
        case .speed: return number(location.speed, 10)
        case .course:
            if let speed = location.speed, speed < Self.courseSpeed { return nil }
            return bearing(location.course)
        case .heading: return bearing(location.heading)
        case .altitude: return number(location.altitudeMSL, 1)
        case .mode: return location.mode.description
        case .kept: return nil
        }
    }
}

/// A stored position as the tracker returns it.
public struct DevicePosition: Sendable, Equatable {
    public var deviceID: String
    public var sampleTime: FixTime
    public var receivedTime: FixTime?
    public var longitude: Double
    public var latitude: Double
    public var horizontalAccuracy: Double?
    public var properties: [String: String]
}

/// A per-item error of BatchUpdateDevicePosition.
public struct BatchItemError: Sendable, Equatable {
    public var deviceID: String
    public var sampleTime: FixTime?
    /// `ValidationError`, `ThrottlingError`, `InternalServerError`, `AccessDeniedError`,
    /// `ResourceNotFoundError`, `ConflictError`.
    public var code: String
    public var message: String

    /// Whether sending the item again later can succeed.
    public var isRetryable: Bool { code == "ThrottlingError" || code == "InternalServerError" }
}
