/// Where a location's horizontal accuracy comes from (`accuracy-source`).
///
/// `gpsd`: the TPV's `eph`, whatever gpsd made of it. For a receiver read in its binary protocol
/// that is the receiver's own estimate (a u-blox's NAV-PVT `hAcc`); for an NMEA receiver gpsd 3.22
/// has only 19 m times the HDOP. `gst`: the receiver's own error statistics of the same epoch
/// (the NMEA GST sentence, `ErrorEstimate`) when it sends them, gpsd's figure for an epoch
/// without. Not the default: the quality gate's `max-accuracy` and the fidelity measurements were
/// set with gpsd's figures, and a receiver that fills GST with placeholders would pass it all.
public enum AccuracySource: String, Sendable, CaseIterable {
    case gpsd
    case gst

    /// What a value must be, for the key's and watch's errors: "gpsd or gst".
    public static var choices: String { allCases.map(\.rawValue).joined(separator: " or ") }
}
