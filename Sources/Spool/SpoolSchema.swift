/// The spool's tables and their forward migrations.
///
/// `PRAGMA user_version` holds the number of migrations applied. Migrations only ever add: a
/// database written by an older gpstrackd is upgraded in place with every row kept; one written
/// by a newer gpstrackd is refused rather than guessed at.
enum SpoolSchema {
    static let positionColumns = """
        fix_time INTEGER NOT NULL,
        mode INTEGER NOT NULL,
        latitude REAL NOT NULL,
        longitude REAL NOT NULL,
        altitude_msl REAL, altitude_hae REAL, course REAL, speed REAL, climb REAL, heading REAL,
        horizontal_accuracy REAL, vertical_accuracy REAL, speed_accuracy REAL, course_accuracy REAL,
        device TEXT
        """

    /// Migration N (1-based) takes the schema from version N-1 to N.
    static let migrations: [String] = [
        // 1: positions waiting for upload, positions the tracker refused, persistent counters.
        """
        CREATE TABLE positions (id INTEGER PRIMARY KEY, \(positionColumns));
        CREATE TABLE dead_letters (
            id INTEGER PRIMARY KEY, \(positionColumns),
            code TEXT NOT NULL, message TEXT NOT NULL, rejected_at INTEGER NOT NULL);
        CREATE TABLE counters (name TEXT PRIMARY KEY, value INTEGER NOT NULL);
        """,
        // 2: which filter trigger kept each position.
        """
        ALTER TABLE positions ADD COLUMN kept TEXT;
        ALTER TABLE dead_letters ADD COLUMN kept TEXT;
        """,
    ]

    static var currentVersion: Int { migrations.count }

    /// The columns of a position row, in the order `SpooledPosition` reads them after `id`.
    static let selectColumns = """
        fix_time, mode, latitude, longitude, altitude_msl, altitude_hae, course, speed, climb, heading,
        horizontal_accuracy, vertical_accuracy, speed_accuracy, course_accuracy, device, kept
        """

    /// Brings `database` to `currentVersion`, or up to `target` (for tests of old schemas).
    static func migrate(_ database: Database, to target: Int = currentVersion) throws(SpoolError) {
        let version = Int(try database.integer("PRAGMA user_version") ?? 0)
        guard version <= currentVersion else {
            throw .sqlite(
                code: 0, message: "spool schema version \(version) is newer than this gpstrackd (\(currentVersion)); upgrade gpstrackd",
                sql: "PRAGMA user_version")
        }
        for next in version..<min(target, currentVersion) {
            try database.transaction { () throws(SpoolError) in
                try database.execute(migrations[next])
                try database.execute("PRAGMA user_version = \(next + 1)")
            }
        }
    }
}
