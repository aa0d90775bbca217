/// Where the horizontal accuracy a location reports comes from (`accuracy-source`).
///
/// `gpsd`: the TPV's `eph`, whatever gpsd made of it. For a receiver read in its binary protocol
/// that is the receiver's own estimate (a u-blox's NAV-PVT `hAcc`); for an NMEA receiver gpsd 3.22
/// has only 19 m times the HDOP. `gst` (the default): the receiver's own error statistics of the
/// same epoch (the NMEA GST sentence, `ErrorEstimate`) when it sends them, gpsd's figure for an
/// epoch without. Either way the filter judges the fix by gpsd's figure (`Location.filterAccuracy`):
/// the source changes what the tracker is told and stores, and so how far apart an AccuracyBased
/// tracker keeps the points (on make_drive's drives 10-20 m with GST, 26-55 m with gpsd's).
public enum AccuracySource: String, Sendable, CaseIterable {
    case gpsd
    case gst

    /// What a value must be, for the key's and watch's errors: "gpsd or gst".
    public static var choices: String { allCases.map(\.rawValue).joined(separator: " or ") }
}
