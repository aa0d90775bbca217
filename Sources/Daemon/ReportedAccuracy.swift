import TrackingCore

/// The horizontal accuracies a receiver reports, as they travel (`WirePrecision`), kept as a
/// histogram of whole metres so that a watch of hours holds 201 counts, not every fix; and what
/// they mean for the tracker's mode.
///
/// An AccuracyBased tracker stores no point nearer the last than both accuracies summed, about
/// twice the median; DistanceBased keeps points `TrackerFiltering.distance` (30 m) apart. With
/// gpsd's NMEA figures (19 m times the HDOP) the first is the wider, with a receiver's own
/// estimate (a u-blox's NAV-PVT `hAcc`, a few metres) the narrower (README, the tracker section).
struct ReportedAccuracy {
    /// Counts by whole metre, 0...199; the last also counts everything beyond.
    private var counts = [Int](repeating: 0, count: 201)
    /// Accuracies added.
    private(set) var total = 0
    /// Of them, the receiver's own (its GST reported, gpsd's figure beside it for the filter).
    private(set) var receiversOwn = 0

    /// A location's reported accuracy, and whose it is.
    mutating func add(_ location: Location) {
        add(location.horizontalAccuracy)
        if location.filterAccuracyApart != nil { receiversOwn += 1 }
    }

    /// Whether most of the accuracies are the receiver's own GST figures, not gpsd's.
    var mostlyReceiversOwn: Bool { 2 * receiversOwn > total }

    /// One accuracy; a missing one counts as 0, as in the tracker's sum.
    mutating func add(_ accuracy: Double?) {
        let metres = (accuracy.map(WirePrecision.accuracy) ?? 0).rounded()
        counts[metres.isFinite ? min(counts.count - 1, max(0, Int(metres))) : counts.count - 1] += 1
        total += 1
    }

    /// The median in whole metres (the mean of the two middle ones for an even count); nil before any.
    var median: Double? {
        guard total > 0 else { return nil }
        func value(at rank: Int) -> Double {
            var seen = 0
            for (metres, count) in counts.enumerated() {
                seen += count
                if seen > rank { return Double(metres) }
            }
            return Double(counts.count - 1)
        }
        return (value(at: (total - 1) / 2) + value(at: total / 2)) / 2
    }

    /// About how far apart an AccuracyBased tracker keeps the points: both accuracies summed.
    var accuracyBasedSpacing: Double? { median.map { 2 * $0 } }

    /// Whether AccuracyBased would space the points wider than DistanceBased.
    var favoursDistanceBased: Bool { (accuracyBasedSpacing ?? 0) > TrackerFiltering.distance }

    /// The mode that keeps this receiver's stored track nearer the road, and why, in a sentence.
    var modeAdvice: String? {
        guard let median, let spacing = accuracyBasedSpacing else { return nil }
        let distance = Int(TrackerFiltering.distance)
        let mode = favoursDistanceBased ? "DistanceBased" : "AccuracyBased"
        let comparison = favoursDistanceBased ? "wider than" : spacing < TrackerFiltering.distance ? "nearer than" : "as far as"
        let whose = mostlyReceiversOwn ? "its own, from NMEA GST" : "gpsd's figure"
        return "this receiver reports a median accuracy of \(Int(median.rounded())) m (\(whose)) over \(total) fixes: an AccuracyBased tracker would "
            + "store its points about \(Int(spacing.rounded())) m apart, \(comparison) DistanceBased's \(distance) m; "
            + "for this receiver, create or update the tracker with --position-filtering \(mode)"
    }

    mutating func reset() {
        self = ReportedAccuracy()
    }
}
