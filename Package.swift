// swift-tools-version:6.0
import PackageDescription

// Release builds on Linux lay the daemon's code out for a small resident set: every function in its own
// section, the functions the daemon runs placed together in the order Benchmarks/order-functions
// recorded (Sources/gpstrackd/functions.order), the compiler's unnamed helpers gathered ahead of them
// (Sources/gpstrackd/text-layout.ld), and relative relocations packed (DT_RELR). The kernel maps code
// in 64 KiB runs around each page touched, so code the daemon never calls stays out of memory.
let compact: [SwiftSetting] = [.unsafeFlags(["-Xfrontend", "-function-sections"], .when(platforms: [.linux], configuration: .release))]
let compactLayout: [LinkerSetting] = [
    .unsafeFlags([
        "-use-ld=lld",
        "-Xlinker", "-z", "-Xlinker", "pack-relative-relocs",
        "-Xlinker", "--symbol-ordering-file=\(Context.packageDirectory)/Sources/gpstrackd/functions.order",
        "-Xlinker", "--no-warn-symbol-ordering",
        "-Xlinker", "-T", "-Xlinker", "\(Context.packageDirectory)/Sources/gpstrackd/text-layout.ld",
    ], .when(platforms: [.linux], configuration: .release)),
]

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

        // OpenSSL 3 (Debian's libssl3), opened at run time by the first tracker client: the
        // file sink never maps it. Its headers (libssl-dev) are needed to build.
        .target(name: "COpenSSL"),

        // adjtimex(2), which the Glibc module does not export.
        .systemLibrary(name: "CClock"),

        // The domain: Location, geodesy, filters, and the JSON the other modules speak. Only the standard library.
        // Optimized in debug builds too: the tests replay hours of drives through the filter and
        // its offline optimum, 20-50 times slower unoptimized, on the cores the timing tests share.
        .target(name: "TrackingCore", swiftSettings: compact + [.unsafeFlags(["-O"], .when(configuration: .debug))]),
        // File descriptors, Errno at the call, EINTR, whole writes, durable replacement.
        .target(name: "SystemIO", swiftSettings: compact),

        // One libgps session on its own thread, reconnecting, producing Locations.
        .target(name: "GPSDReader", dependencies: ["TrackingCore", "SystemIO", "CGPS"], swiftSettings: compact),

        // The durable offline queue on SQLite.
        .target(name: "Spool", dependencies: ["TrackingCore", "CSQLite"], swiftSettings: compact),

        // The Amazon Location tracker client: SigV4, credentials, HTTP.
        .target(name: "AWSLocation", dependencies: ["TrackingCore", "SystemIO", "COpenSSL"], swiftSettings: compact),

        // Batching, rate limit, retries and per-item errors between the spool and the tracker.
        .target(name: "Uploader", dependencies: ["TrackingCore", "SystemIO", "Spool", "AWSLocation"], swiftSettings: compact),

        // Command line, configuration, lifecycle, logging.
        .target(name: "Daemon", dependencies: ["TrackingCore", "SystemIO", "GPSDReader", "AWSLocation", "Spool", "Uploader", "CClock"], swiftSettings: compact),

        .executableTarget(
            name: "gpstrackd", dependencies: ["Daemon"], exclude: ["functions.order", "text-layout.ld"],
            swiftSettings: compact, linkerSettings: compactLayout
        ),

        // Benchmarks that print figures, and the child of the spool crash test.
        .executableTarget(name: "gpstrackd-bench", dependencies: ["Spool", "SystemIO", "TrackingCore", "AWSLocation", "Uploader", "TestSupport"]),

        // What tests and benchmarks share: a small tmpfs of their own, a seeded generator, fixture lines.
        .target(name: "TestSupport", dependencies: ["TrackingCore"], path: "Tests/Support"),

        .testTarget(name: "TrackingCoreTests", dependencies: ["TrackingCore", "TestSupport"], exclude: ["Fixtures"]),
        .testTarget(name: "SystemIOTests", dependencies: ["SystemIO"]),
        .testTarget(name: "AWSLocationTests", dependencies: ["AWSLocation", "TrackingCore"]),
        .testTarget(name: "DaemonTests", dependencies: ["Daemon", "TrackingCore", "Spool", "Uploader", "AWSLocation", "TestSupport"]),
        .testTarget(name: "UploaderTests", dependencies: ["Uploader", "TrackingCore", "Spool", "AWSLocation", "TestSupport"]),
        .testTarget(name: "SpoolTests", dependencies: ["Spool", "TrackingCore", "CSQLite", "TestSupport"]),
        .testTarget(name: "GPSDReaderTests", dependencies: ["GPSDReader", "TrackingCore", "TestSupport"]),
        .testTarget(
            name: "IntegrationTests",
            dependencies: ["GPSDReader", "TrackingCore", "Daemon", "Spool", "AWSLocation", "Uploader", "gpstrackd", "gpstrackd-bench", "TestSupport"],
            exclude: ["Fixtures"]
        ),
    ],
    swiftLanguageModes: [.v6]
)
