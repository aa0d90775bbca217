extension TrackerSpacing {
    /// What the places owed (the wishes that are not corners: stops, departures, heartbeats, the
    /// end) ask of the next choice, read in one pass over the wishes where they lie. The spacing
    /// asks on every fix while something is owed, and copying the places out first (each a whole
    /// fix) came to 6 % of its instructions under TimeBased at 1 Hz.
    struct PlacesDue {
        /// When the first stop owed fell due, when one is owed.
        private(set) var stop: FixTime?
        /// Whether a heartbeat is owed.
        private(set) var heartbeats = false
        /// Whether a place owed is neither a heartbeat nor a stop (a departure, the end).
        private(set) var other = false
        /// The earliest and the latest time the choice must meet: each place's own, heartbeats
        /// owed one after another counting as the first of them (one need: a point since it fell
        /// due). Nil when only corners are owed.
        private(set) var earliest: FixTime?
        private(set) var latest: FixTime?

        init(_ owed: [KeptLocation]) {
            for index in owed.indices where !owed[index].trigger.isCorner {
                let time = owed[index].location.time
                switch owed[index].trigger {
                case .heartbeat:
                    guard !heartbeats else { continue }
                    heartbeats = true
                case .stop:
                    if stop == nil { stop = time }
                default:
                    other = true
                }
                earliest = min(earliest ?? time, time)
                latest = max(latest ?? time, time)
            }
        }

        /// Whether the choice is made at once, with the newest fix kept: a place owed that is
        /// not a heartbeat, nor a stop the vehicle has left (`left`).
        func atOnce(left: Bool) -> Bool { other || (stop != nil && !left) }

        /// Whether every place owed is a stop (or none is owed).
        var onlyStops: Bool { !heartbeats && !other }
    }
}
