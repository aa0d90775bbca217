import Spool
import TrackingCore

/// Which queued positions the tracker's filtering would store, by the newest position already
/// let through: the uploader's guard for positions queued before the filter knew the tracker's
/// mode (or before a restart). Pure; the uploader acknowledges the withheld rows.
struct TrackerSpacingGuard: Sendable {
    /// The newest position (by fix time) let through to the tracker, sent or about to be: the
    /// one its filtering judges the next update by (the stored position with the latest sample time).
    private(set) var lastPlanned: Location?
    /// Rows up to this fix time were judged in queue order: one at or before it that comes again
    /// is a retry. Behind `lastPlanned` while the live lane runs ahead of a backlog.
    private var judgedThrough: FixTime?
    /// The newest let through in queue order: under TimeBased the tracker keeps 30 s from every
    /// stored position, so a backlog row is judged by its predecessor as well as by the newest.
    private var lastInOrder: Location?
    /// The fix time of the position the tracker stored before this run: the row with it in the
    /// spool was sent and stored, its acknowledgement lost.
    let storedBefore: FixTime?

    init(lastStored: Location?) {
        lastPlanned = lastStored
        lastInOrder = lastStored
        judgedThrough = lastStored?.time
        storedBefore = lastStored?.time
    }

    /// Splits `rows` into those that go and those the tracker would not store. A row judged
    /// before (a retry) goes again; the row the tracker stored before a restart does not. `live`:
    /// the rows are the newest, sent ahead of a backlog, which is then judged by them as the
    /// tracker will (a backlog row its filtering would drop beside the newest is withheld).
    mutating func split(_ rows: [SpooledPosition], filtering: TrackerFiltering, live: Bool = false)
        -> (kept: [SpooledPosition], withheld: [SpooledPosition])
    {
        var kept: [SpooledPosition] = []
        var withheld: [SpooledPosition] = []
        for row in rows {
            let time = row.location.time
            if time == storedBefore {
                withheld.append(row)
            } else if !live, let judged = judgedThrough, time <= judged {
                kept.append(row)
            } else if let last = lastPlanned, time <= last.time {
                // Behind the newest let through: the backlog behind the live lane (or the live
                // lane's own rows, released after a failure, which go as they are).
                if !live { judgedThrough = time }
                let stored = time == last.time
                    || (filtering.stores(row.location, after: last) && (filtering != .timeBased || filtering.stores(row.location, after: lastInOrder)))
                if stored {
                    kept.append(row)
                    if !live { lastInOrder = row.location }
                } else {
                    withheld.append(row)
                }
            } else if filtering.stores(row.location, after: lastPlanned) {
                kept.append(row)
                lastPlanned = row.location
                if !live {
                    judgedThrough = time
                    lastInOrder = row.location
                }
            } else {
                withheld.append(row)
                if !live { judgedThrough = time }
            }
        }
        return (kept, withheld)
    }
}
