import CSQLite
import TrackingCore

/// Room on disk: the caps, thinning, and a full disk.
///
/// On a full disk the spool first makes room without losing anything: a checkpoint lets the
/// write-ahead log be written from its start again, then it gives up its reserve file
/// (`DiskReserve`); then it thins the oldest positions. A position that still finds no room
/// waits in memory, in order, up to `maxHeld`, and is stored as soon as there is room: the newest
/// positions are never the ones lost while older ones can be thinned. While the disk is nearly
/// full the spool thins ahead, before a write fails.
extension SpoolStore {
    /// Positions held in memory on a full disk before the oldest of them are dropped (counted).
    static let maxHeld = 10_000

    /// Stores the held positions in order; those that find no room stay held.
    func storeHeld() throws(SpoolError) {
        writeAcks()
        var stored = 0
        defer {
            if stored > 0 {
                held.removeFirst(stored)
                heldCounted = max(0, heldCounted - stored)
            }
            if held.isEmpty, holdingReported {
                holdingReported = false
                events(.storedAfterDiskFull)
            }
        }
        while stored < held.count {
            let (location, kept) = held[stored]
            do {
                try withRoom { () throws(SpoolError) in try insert(location, kept: kept) }
            } catch where error.primaryCode == SQLITE_FULL {
                let waiting = held.count - stored
                // Each position that found no room counts once, however often it is tried again.
                storeFailures += Int64(max(0, waiting - heldCounted))
                heldCounted = waiting
                if !holdingReported {
                    holdingReported = true
                    events(.heldInMemory(path: path, count: waiting))
                }
                if waiting > Self.maxHeld {
                    // Thin the oldest held positions, as the spool thins its oldest rows.
                    let drop = waiting - Self.maxHeld
                    held.removeSubrange(stored..<(stored + drop))
                    heldCounted -= drop
                    evictions += Int64(drop)
                    unsavedEvictions += Int64(drop)
                    events(.evicted(count: drop, reason: .diskFull))
                }
                return
            }
            stored += 1
            queued += 1
        }
    }

    /// Runs `write`; on a full disk makes room step by step and tries again, then throws the
    /// full-disk error. First room that costs nothing (the log's own, the reserve), then, with
    /// `thinning`, the oldest positions.
    func withRoom<T>(thinning: Bool = true, _ write: () throws(SpoolError) -> T) throws(SpoolError) -> T {
        var step = 0
        while true {
            do {
                return try write()
            } catch where error.primaryCode == SQLITE_FULL {
                step += 1
                switch step {
                case 1:
                    checkpoint()
                case 2 where reserve.release():
                    events(.reserveReleased(path: reserve.path))
                case 2...6 where thinning && queued > 1:
                    try evict(.diskFull)
                    checkpoint()
                default:
                    throw error
                }
            }
        }
    }

    /// While the filesystem is nearly full and the reserve is spent, thins the oldest positions
    /// before the database has to grow (a write that fails costs more than one that is not
    /// needed); makes the reserve again once there is room.
    func makeRoomAhead() {
        if reserve.isHeld { return }
        guard let available = reserve.available, available < 64 * 1024 else {
            if reserve.replenish() { events(.reserveRestored(path: reserve.path)) }
            return
        }
        // Room for the next few positions and their log frames, or thin now.
        guard queued >= 20, let free = try? freeBytes(), free < 8 * 1024 else { return }
        try? evict(.diskFull)
    }

    /// Copies the write-ahead log into the database so that the next commit writes the log from
    /// its start again: room the log already has on disk, where a growing log would need more.
    func checkpoint() {
        try? database.execute("PRAGMA wal_checkpoint(RESTART)")
    }

    /// Pages in use (not on the free list), in bytes: what `spool-max-bytes` limits.
    func usedBytes() throws(SpoolError) -> Int64 {
        let pages = try database.integer("PRAGMA page_count") ?? 0
        let free = try database.integer("PRAGMA freelist_count") ?? 0
        let size = try database.integer("PRAGMA page_size") ?? 4096
        return (pages - free) * size
    }

    /// Bytes on the database's free list: room it can fill without growing.
    func freeBytes() throws(SpoolError) -> Int64 {
        let free = try database.integer("PRAGMA freelist_count") ?? 0
        let size = try database.integer("PRAGMA page_size") ?? 4096
        return free * size
    }

    /// Thins the oldest tenth of the queue by dropping every other row: the recent track matters
    /// most, and the old track keeps its shape at half the density.
    func evict(_ reason: SpoolEvent.EvictionReason) throws(SpoolError) {
        let oldest = max(2, queued / 10)
        let removed = try database.transaction { () throws(SpoolError) -> Int in
            let statement = try database.statement("""
                DELETE FROM positions WHERE id IN (
                    SELECT id FROM (SELECT id, row_number() OVER (ORDER BY id) AS n
                                    FROM (SELECT id FROM positions ORDER BY id LIMIT ?))
                    WHERE n % 2 = 0)
                """)
            statement.bind(1, Int64(oldest))
            try statement.run()
            let removed = database.changes
            let counter = try database.statement("""
                INSERT INTO counters (name, value) VALUES ('evictions', ?)
                ON CONFLICT(name) DO UPDATE SET value = value + excluded.value
                """)
            counter.bind(1, Int64(removed) + unsavedEvictions)
            try counter.run()
            return removed
        }
        unsavedEvictions = 0
        queued -= removed
        evictions += Int64(removed)
        events(.evicted(count: removed, reason: reason))
    }
}
