/// The precision a position travels at to the tracker. Every digit of a position is paid for on
/// the wire with every update, and a receiver resolves far less than a Double carries; gpsd's
/// JSON gives coordinates to 9 decimals. The uploader sends these numbers
/// (`DevicePositionUpdate`) and the model of the tracker's rule reads the same ones
/// (`TrackerFiltering.Mark`), so the filter never decides on a number the tracker does not see:
/// a DistanceBased update 30.03 m away by the fix and 29.97 m by what was sent is dropped.
/// `Location` itself keeps what the receiver said (`watch` prints it as gpsd does).
public enum WirePrecision {
    /// Degrees to 1e-6 (11 cm): at most 5.6 cm from the fix, less than the half step of the
    /// 1e-4 arc-minute (18.5 cm) an NMEA receiver reports in. RFC 7946 (GeoJSON, section 11.2)
    /// calls 6 decimals "a precision well within that of current GPS systems" and asks
    /// implementations to consider the cost of more; a fleet's map shows a vehicle, not a survey.
    public static func degrees(_ value: Double) -> Double {
        guard value.isFinite else { return value }
        return (value * 1e6).rounded() / 1e6
    }

    /// An accuracy to two significant figures (22.8 m travels as 23, 4.56 m as 4.6, an RTK fix's
    /// 0.0143 m as 0.014). It is an estimate whose own error is larger than its second digit:
    /// gpsd's is 19 m times the HDOP.
    public static func accuracy(_ metres: Double) -> Double {
        guard metres.isFinite, metres > 0 else { return metres }
        // Scaled by an exact power of ten into 10..<100, so the rounded value prints short.
        var power = 1.0
        if metres >= 100 {
            while metres / (power * 10) >= 10 { power *= 10 }
            return (metres / power).rounded() * power
        }
        while metres * power < 10 { power *= 10 }
        return (metres * power).rounded() / power
    }
}
