/// Writes a `Location` as one JSON object on one line, the schema of `gpstrackd watch` and of the file sink.
///
/// Keys in a fixed order; a key is absent when its value is unknown. Written by hand rather than
/// through a generic encoder: the format is small and fixed, numbers must never be NaN, and the
/// daemon writes one line per kept fix on small hardware.
public enum LocationJSON {
    /// The JSON object for `location`, without a trailing newline. `extra` pairs are appended as
    /// string values (e.g. `"kept":"heartbeat"`).
    public static func line(for location: Location, extra: [(String, String)] = []) -> String {
        var out = "{\"time\":\""
        out.reserveCapacity(320)
        out.append(location.time.iso8601)
        out.append("\",\"mode\":\"")
        out.append(location.mode.description)
        out.append("\"")
        appendNumber("latitude", location.latitude, to: &out)
        appendNumber("longitude", location.longitude, to: &out)
        appendNumber("altitudeMSL", location.altitudeMSL, to: &out)
        appendNumber("altitudeHAE", location.altitudeHAE, to: &out)
        appendNumber("course", location.course, to: &out)
        appendNumber("speed", location.speed, to: &out)
        appendNumber("climb", location.climb, to: &out)
        appendNumber("heading", location.heading, to: &out)
        appendNumber("horizontalAccuracy", location.horizontalAccuracy, to: &out)
        appendNumber("verticalAccuracy", location.verticalAccuracy, to: &out)
        appendNumber("speedAccuracy", location.speedAccuracy, to: &out)
        appendNumber("courseAccuracy", location.courseAccuracy, to: &out)
        appendNumber("filterAccuracy", location.filterAccuracyApart, to: &out)
        if let device = location.device {
            appendString("device", device, to: &out)
        }
        for (key, value) in extra {
            appendString(key, value, to: &out)
        }
        out.append("}")
        return out
    }

    private static func appendNumber(_ key: String, _ value: Double?, to out: inout String) {
        guard let value, value.isFinite else { return }
        out.append(",\"")
        out.append(key)
        out.append("\":")
        out.append(value.description)
    }

    private static func appendString(_ key: String, _ value: String, to out: inout String) {
        out.append(",\"")
        out.append(key)
        out.append("\":")
        JSONValue.appendQuoted(value, to: &out)
    }
}
