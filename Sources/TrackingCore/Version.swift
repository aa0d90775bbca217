/// The release of gpstrackd.
public enum Version {
    public static let string = "0.1.0"

    /// The day this release was cut. Update with every release.
    public static let releaseDate = FixTime(iso8601: "2026-11-30T00:00:00Z")!

    /// The earliest fix time the quality gate believes by default: the release date less 512 weeks
    /// (9.8 years). A GPS week-rollover bug moves dates back by 1024 weeks (19.6 years), so such
    /// fixes always fall before it, while receiver logs recorded in the last decade still replay.
    public static let earliestPlausibleFixTime = releaseDate.adding(seconds: -512 * 7 * 86_400)
}
