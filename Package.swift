// swift-tools-version:6.0
import PackageDescription

let package = Package(
    name: "gpstrackd",
    products: [
        .executable(name: "gpstrackd", targets: ["gpstrackd"]),
    ],
    targets: [
        // C libraries from Debian, wrapped once each.
        .systemLibrary(
            name: "CGPS",
            pkgConfig: "libgps",
            providers: [.apt(["libgps-dev"])]
        ),

        .systemLibrary(
            name: "CSQLite",
            pkgConfig: "sqlite3",
            providers: [.apt(["libsqlite3-dev"])]
        ),

        .systemLibrary(
            name: "CCrypto",
            pkgConfig: "libcrypto",
            providers: [.apt(["libssl-dev"])]
        ),

        .systemLibrary(
            name: "CTLS",
            pkgConfig: "libssl",
            providers: [.apt(["libssl-dev"])]
        ),

        // adjtimex(2), which the Glibc module does not export.
        .systemLibrary(name: "CClock"),

        // The domain: Location, geodesy, filters, and the JSON the other modules speak. Only the standard library.
        .target(name: "TrackingCore"),

        // One libgps session on its own thread, reconnecting, producing Locations.
        .target(name: "GPSDReader", dependencies: ["TrackingCore", "CGPS"]),

        // The durable offline queue on SQLite.
        .target(name: "Spool", dependencies: ["TrackingCore", "CSQLite"]),

        // The Amazon Location tracker client: SigV4, credentials, HTTP.
        .target(name: "AWSLocation", dependencies: ["TrackingCore", "CCrypto", "CTLS"]),

        // Batching, rate limit, retries and per-item errors between the spool and the tracker.
        .target(name: "Uploader", dependencies: ["TrackingCore", "Spool", "AWSLocation"]),

        // Command line, configuration, lifecycle, logging.
        .target(name: "Daemon", dependencies: ["TrackingCore", "GPSDReader", "AWSLocation", "Spool", "Uploader", "CClock"]),

        .executableTarget(name: "gpstrackd", dependencies: ["Daemon"]),

        // Benchmarks that print figures, and the child of the spool crash test.
        .executableTarget(name: "gpstrackd-bench", dependencies: ["Spool", "TrackingCore", "AWSLocation", "Uploader"]),

        .testTarget(name: "TrackingCoreTests", dependencies: ["TrackingCore"], exclude: ["Fixtures"]),
        .testTarget(name: "AWSLocationTests", dependencies: ["AWSLocation", "TrackingCore"]),
        .testTarget(name: "DaemonTests", dependencies: ["Daemon", "TrackingCore", "Spool"]),
        .testTarget(name: "UploaderTests", dependencies: ["Uploader", "TrackingCore"]),
        .testTarget(name: "SpoolTests", dependencies: ["Spool", "TrackingCore", "CSQLite"]),
        .testTarget(name: "GPSDReaderTests", dependencies: ["GPSDReader", "TrackingCore"]),
        .testTarget(
            name: "IntegrationTests",
            dependencies: ["GPSDReader", "TrackingCore", "Daemon", "Spool", "AWSLocation", "Uploader", "gpstrackd", "gpstrackd-bench"],
            exclude: ["Fixtures"]
        ),
    ],
    swiftLanguageModes: [.v6]
)
