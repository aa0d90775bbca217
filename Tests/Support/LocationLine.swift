import Foundation
import TrackingCore

/// Parses `gpstrackd watch` lines back into `Location` values, for fixtures (the fidelity tests'
/// drives, and the wire benchmark's replay of one).
public enum LocationLine {
    public struct Malformed: Error {
        public var line: String
        public init(line: String) { self.line = line }
    }

    public static func parse(_ line: String) throws -> Location {
        guard let object = try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any],
              let timeText = object["time"] as? String, let time = FixTime(iso8601: timeText),
              let modeText = object["mode"] as? String, let mode = FixMode(modeText),
              let latitude = (object["latitude"] as? NSNumber)?.doubleValue,
              let longitude = (object["longitude"] as? NSNumber)?.doubleValue
        else { throw Malformed(line: line) }
        func number(_ key: String) -> Double? { (object[key] as? NSNumber)?.doubleValue }
        guard let location = Location(
            time: time, mode: mode, latitude: latitude, longitude: longitude,
            altitudeMSL: number("altitudeMSL"), altitudeHAE: number("altitudeHAE"), course: number("course"),
            speed: number("speed"), climb: number("climb"), heading: number("heading"),
            horizontalAccuracy: number("horizontalAccuracy"), verticalAccuracy: number("verticalAccuracy"),
            speedAccuracy: number("speedAccuracy"), courseAccuracy: number("courseAccuracy"),
            filterAccuracy: number("filterAccuracy"), device: object["device"] as? String)
        else { throw Malformed(line: line) }
        return location
    }
}
