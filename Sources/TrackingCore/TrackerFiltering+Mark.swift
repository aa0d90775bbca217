extension TrackerFiltering {
    /// What the tracker's rule reads in a position: its sample time, its place and its horizontal
    /// accuracy (a missing one counts as 0, as the service counts it), at the precision they
    /// travel at (`WirePrecision`), since the tracker reads what was sent. A choice (`SpacedPath`)
    /// asks the rule about every pair of its candidates, up to two thousand times a choice: asked
    /// with whole `Location`s, each copied to be asked, those copies were 8 % of the spacing's
    /// time under TimeBased at 1 Hz in a profile (3 % of its instructions).
    struct Mark: Sendable {
        let time: FixTime
        let latitude: Double
        let longitude: Double
        let accuracy: Double

        init(_ location: Location) {
            time = location.time
            latitude = WirePrecision.degrees(location.latitude)
            longitude = WirePrecision.degrees(location.longitude)
            accuracy = location.horizontalAccuracy.map(WirePrecision.accuracy) ?? 0
        }
    }
}
