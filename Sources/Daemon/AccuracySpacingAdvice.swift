import TrackingCore

/// Under an AccuracyBased tracker, says once when the receiver's accuracies space the stored
/// points wider than DistanceBased would, with the command that changes the mode.
///
/// The TimeBased warning names AccuracyBased, and that is the better mode with a receiver that
/// reports its own accuracy (a few metres). From NMEA, gpsd reports 19 m times the HDOP, and the
/// tracker then stores no point nearer the last than both accuracies summed, some 40–50 m, where
/// DistanceBased's 30 m would keep corners nearer the road (README, the tracker section). Judged
/// on the kept points (the accuracies the tracker sums, as they travel), each `sample` of them in
/// turn, by their median (`ReportedAccuracy`): above half of DistanceBased's 30 m, AccuracyBased
/// is the coarser.
struct AccuracySpacingAdvice {
    /// Kept points weighed before anything is said.
    static let sample = 10

    private let tracker: String
    private var accuracies = ReportedAccuracy()
    private var said = false

    init(tracker: String) {
        self.tracker = tracker
    }

    /// A point kept under `filtering`; returns the advice the first time it is due.
    mutating func observe(_ kept: Location, under filtering: TrackerFiltering) -> String? {
        guard filtering == .accuracyBased, !said else { return nil }
        accuracies.add(kept)
        guard accuracies.total >= Self.sample else { return nil }
        defer { accuracies.reset() }
        guard accuracies.favoursDistanceBased, let median = accuracies.median, let spacing = accuracies.accuracyBasedSpacing else { return nil }
        said = true
        let figures = accuracies.mostlyReceiversOwn
            ? "these are the receiver's own figures, from its NMEA GST: see the README's tracker section"
            : "these are gpsd's figures: where the receiver sends NMEA GST, accuracy-source = gst, the default, reports its own; "
                + "or use a receiver that reports its own accuracy, such as a u-blox sending NAV-PVT: see the README's tracker section"
        return "tracker '\(tracker)' is AccuracyBased and this receiver reports accuracies of about \(Int(median.rounded())) m "
            + "(the median of the last \(Self.sample) points sent), so the tracker stores no point nearer the last one than about "
            + "\(Int(spacing.rounded())) m and cuts the corners between them. DistanceBased keeps points \(Int(TrackerFiltering.distance)) m apart: "
            + "aws location update-tracker --tracker-name \(tracker) --position-filtering DistanceBased (\(figures))"
    }
}
