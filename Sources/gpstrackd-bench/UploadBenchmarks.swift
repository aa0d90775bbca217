// The uploader's benchmarks: a backlog drained into a tracker emulator, and a trickle of single
// positions for the CPU each one costs.
import AWSLocation
import Glibc
import Spool
import TrackingCore
import Uploader

/// CPU seconds (user + system) this process has used.
func cpuSeconds() -> Double {
    var usage = rusage()
    getrusage(RUSAGE_SELF.rawValue, &usage)
    return Double(usage.ru_utime.tv_sec) + Double(usage.ru_utime.tv_usec) / 1e6
        + Double(usage.ru_stime.tv_sec) + Double(usage.ru_stime.tv_usec) / 1e6
}

func benchmarkDrain(endpoint: String, positions: Int, rate: Double, inFlight: Int, directory: String) async throws {
    system("rm -rf '\(directory)'")
    try await fill(directory: directory, rows: positions)
    let spool = try await Spool.open(.init(directory: directory))
    let client = try benchmarkClient(endpoint: endpoint)
    var configuration = Uploader.Configuration(tracker: "bench", deviceID: "bench-device")
    configuration.maxRequestRate = rate
    configuration.maxInFlight = inFlight
    configuration.progressInterval = 1_000_000
    let uploader = Uploader(configuration: configuration, spool: spool, client: client)
    let clock = ContinuousClock()
    let cpuBefore = cpuSeconds()
    let begin = clock.now
    let running = Task { await uploader.run() }
    while try await spool.statistics().queued > 0 {
        try await Task.sleep(for: .milliseconds(200))
    }
    let elapsed = (clock.now - begin).seconds
    let cpu = cpuSeconds() - cpuBefore
    uploader.stop()
    await running.value
    let throughput = Double(positions) / elapsed
    let bound = rate * 10
    say("drain of \(positions) positions into \(endpoint), max-request-rate \(fixed(rate)), max-in-flight \(inFlight)")
    line("figure", "measured", "target")
    line("positions/s", fixed(throughput), ">= \(fixed(bound * 0.9)) (90% of \(fixed(bound)))")
    line("  ratio to the bound (rate x 10)", fixed(throughput / bound, 3), ">= 0.900")
    line("CPU seconds per 10,000 positions", fixed(cpu / Double(positions) * 10_000, 3), "")
    line("requests, failed", "\(uploader.statistics.requests), \(uploader.statistics.failedRequests)", "")
}

/// The daemon's path for one kept position: a durable append handed to the spool's queue,
/// the uploader told by the spool once committed, and (with an uploader) a request of its own, since the fix is older than `upload-interval`. Run once without
/// the uploader and once with it, `every` milliseconds apart so that threads go idle in between as
/// they do in the daemon; the difference is what uploading costs per position.
func benchmarkTrickle(endpoint: String, positions: Int, every: Int, directory: String) async throws {
    var cpuPerPosition: [Bool: Double] = [:]
    var requests = 0
    for uploading in [false, true] {
        system("rm -rf '\(directory)'")
        let spool = try await Spool.open(.init(directory: directory))
        let client = try benchmarkClient(endpoint: endpoint)
        let uploader = uploading ? Uploader(configuration: .init(tracker: "bench", deviceID: "bench-device"), spool: spool, client: client) : nil
        let running = Task { await uploader?.run() }
        let cpuBefore = cpuSeconds()
        for n in 0..<positions {
            // As the daemon's reader thread does: handed to the spool's queue (which tells the
            // uploader once it is committed).
            spool.append(position(n), kept: nil) { _ in }
            try await Task.sleep(for: .milliseconds(every))
        }
        await spool.flush()
        if uploading {
            while try await spool.statistics().queued > 0 { try await Task.sleep(for: .milliseconds(every)) }
        }
        cpuPerPosition[uploading] = cpuSeconds() - cpuBefore
        requests = uploader?.statistics.requests ?? requests
        uploader?.stop()
        await running.value
    }
    let alone = cpuPerPosition[false]! / Double(positions) * 1000
    let with = cpuPerPosition[true]! / Double(positions) * 1000
    say("trickle of \(positions) positions, one every \(every) ms, into \(endpoint)")
    line("figure", "measured", "")
    line("CPU ms per position, append only", fixed(alone, 3), "")
    line("CPU ms per position, append and upload", fixed(with, 3), "")
    line("CPU ms per position, uploading", fixed(with - alone, 3), "(\(requests) requests)")
}

/// The upload benchmarks' client: the emulator at `endpoint`, signing with the documentation's example keys.
func benchmarkClient(endpoint: String) throws -> TrackerClient {
    TrackerClient(
        region: "us-east-1", endpoint: try ServiceEndpoint(endpoint),
        credentials: StaticCredentialProvider(Credentials(
            accessKeyID: "AKIDEXAMPLE", secretAccessKey: "wJalrXUtnFEMI/K7MDENG+bPxRfiCYEXAMPLEKEY", source: "benchmark")),
        transport: SocketTransport())
}

/// The options of `drain` and `trickle`; exits with a usage message on an unknown one.
struct UploadOptions {
    var endpoint = ""
    var positions: Int
    var rate = 50.0
    var inFlight = 4
    var every = 20

    static func parse(_ arguments: inout ArraySlice<String>, command: String, positions: Int) -> UploadOptions {
        var options = UploadOptions(positions: positions)
        while let flag = arguments.popFirst() {
            switch flag {
            case "--endpoint": options.endpoint = arguments.popFirst() ?? ""
            case "--positions": options.positions = Int(arguments.popFirst() ?? "") ?? options.positions
            case "--rate": options.rate = Double(arguments.popFirst() ?? "") ?? options.rate
            case "--in-flight": options.inFlight = Int(arguments.popFirst() ?? "") ?? options.inFlight
            case "--every": options.every = Int(arguments.popFirst() ?? "") ?? options.every
            default: print("unknown option \(flag)"); exit(64)
            }
        }
        if options.endpoint.isEmpty { print("\(command) needs --endpoint http://127.0.0.1:PORT"); exit(64) }
        return options
    }
}

/// The live lane: `queued` positions waiting, then one fix a second with the time of now for
/// `seconds`, through the uploader with default settings. What the map would show is read from
/// the emulator afterwards (`Benchmarks/run live`): each live fix's arrival against its fix time.
func benchmarkLive(endpoint: String, queued: Int, seconds liveSeconds: Int, directory: String) async throws {
    system("rm -rf '\(directory)'")
    try await fill(directory: directory, rows: queued)
    let spool = try await Spool.open(.init(directory: directory))
    let client = try benchmarkClient(endpoint: endpoint)
    var configuration = Uploader.Configuration(tracker: "bench", deviceID: "bench-device")
    configuration.progressInterval = 1_000_000
    let uploader = Uploader(configuration: configuration, spool: spool, client: client)
    let running = Task { await uploader.run() }
    say("live: \(queued) positions queued, then a fix a second for \(liveSeconds) s, default settings (upload-interval \(fixed(configuration.uploadInterval)) s)")
    line("figure", "measured", "target")
    for n in 0..<liveSeconds {
        let now = SystemClock.now()
        try await spool.append(Location(time: now, mode: .threeD, latitude: 48.1 + Double(n) * 1e-4, longitude: 11.5, speed: 12, horizontalAccuracy: 4)!)
        try await Task.sleep(for: .seconds(1))
    }
    try await Task.sleep(for: .seconds(Int64(configuration.uploadInterval) + 3))
    let left = try await spool.statistics().queued
    uploader.stop()
    await running.value
    line("live fixes", "\(liveSeconds)", "")
    line("backlog still queued at the end", "\(left) of \(queued)", "> 0 (the drain went on behind them)")
    line("requests", "\(uploader.statistics.requests)", "")
}
