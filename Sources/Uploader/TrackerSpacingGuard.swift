import Spool
import TrackingCore

/// Which queued positions the tracker's filtering would store, by the newest position already
/// let through: the uploader's guard for positions queued before the filter knew the tracker's
/// mode (or before a restart). Pure; the uploader acknowledges the withheld rows.
struct TrackerSpacingGuard: Sendable {
    /// The newest position (by fix time) let through to the tracker, sent or about to be.
    private(set) var lastPlanned: Location?
    /// The fix time of the position the tracker stored before this run: the row with it in the
    /// spool was sent and stored, its acknowledgement lost.
    let storedBefore: FixTime?

    init(lastStored: Location?) {
        lastPlanned = lastStored
        storedBefore = lastStored?.time
    }

    /// Splits `rows` into those that go and those the tracker would not store. A row no newer
    /// than the newest let through was let through before (a retry) and goes again; the row the
    /// tracker stored before a restart does not.
    mutating func split(_ rows: [SpooledPosition], filtering: TrackerFiltering) -> (kept: [SpooledPosition], withheld: [SpooledPosition]) {
        var kept: [SpooledPosition] = []
        var withheld: [SpooledPosition] = []
        for row in rows {
            if row.location.time == storedBefore {
                withheld.append(row)
            } else if let last = lastPlanned, row.location.time <= last.time {
                kept.append(row)
            } else if filtering.stores(row.location, after: lastPlanned) {
                kept.append(row)
                lastPlanned = row.location
            } else {
                withheld.append(row)
            }
        }
        return (kept, withheld)
    }
}
