import TrackingCore

/// The receiver's own estimate of its position error for one epoch: gpsd's GST report (from the
/// NMEA GST sentence, "GNSS pseudorange error statistics"), the 1-sigma errors of latitude and
/// longitude in metres.
///
/// gpsd 3.22 does not fold it into the TPV's `eph`: for an NMEA receiver `eph` is 19 m times the
/// HDOP whatever the receiver says of itself (13-27 m on make_drive's drives, whose fixes are
/// about 4 m rms off the road; its GST there says 1.8-3.5 m an axis). An AccuracyBased
/// tracker stores no update nearer the last than both accuracies summed, so gpsd's figure spaces
/// the stored points 40-50 m apart and cuts corners a receiver's own estimate would keep.
/// With `accuracy-source = gst` the estimate replaces `eph` for the epoch of the same time
/// (`EpochAssembler`, `AccuracySource`).
public struct ErrorEstimate: Sendable, Equatable {
    /// The epoch the statistics are for.
    public var time: FixTime
    /// 1-sigma error of latitude, metres.
    public var latitudeError: Double
    /// 1-sigma error of longitude, metres.
    public var longitudeError: Double

    /// `nil` unless both errors are finite and non-negative and at least one is above zero: a
    /// receiver that fills GST with zeros (or leaves its fields empty) says nothing of itself.
    public init?(time: FixTime?, latitudeError: Double, longitudeError: Double) {
        guard let time, latitudeError.isFinite, longitudeError.isFinite,
              latitudeError >= 0, longitudeError >= 0, latitudeError + longitudeError > 0 else { return nil }
        self.time = time
        self.latitudeError = latitudeError
        self.longitudeError = longitudeError
    }

    /// The horizontal accuracy gpstrackd reports from it, in metres: twice the distance root mean
    /// square (2DRMS), the radius that holds 95-98 % of fixes and the figure receivers' data
    /// sheets quote. It is of the order gpsd means by `eph` (a 95 % figure where it knows one),
    /// and what Amazon Location means by `Accuracy.Horizontal`: the largest distance to expect
    /// between the measured and the true position. Rounded to the centimetre.
    public var horizontalAccuracy: Double {
        (200 * (latitudeError * latitudeError + longitudeError * longitudeError).squareRoot()).rounded() / 100
    }
}
