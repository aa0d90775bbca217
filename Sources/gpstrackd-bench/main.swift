// gpstrackd-bench: benchmarks that print figures, and the child process of the spool crash test.
//
//   gpstrackd-bench spool [--rows N] [--dir DIR]   spool figures against the targets
//   gpstrackd-bench spool-append-loop DIR          append forever, printing each sequence number
//                                                  after its append returned (for SIGKILL tests)
//   gpstrackd-bench filter [--seconds N] [--seed S]
//                                                  the filter alone: CPU per fix, fixes held, points
//                                                  against the fewest possible, the road beyond 12 m of
//                                                  the kept track, at 1 and 10 Hz; CPU and fixes held
//                                                  under each tracker rule
//   gpstrackd-bench wire --endpoint https://localhost:PORT --ca PEM [--positions N] [--every MS] [--idle-close S] [--keepalive S]
//                                                  bytes per position through a counting relay that
//                                                  closes idle connections, with and without TLS resumption
//   gpstrackd-bench wire --endpoint https://localhost:PORT --ca PEM --drive LOCATIONS.jsonl [--speedup K] [--upload-interval S] [--keepalive S]
//                                                  bytes per position of a recorded drive through the
//                                                  default filter and uploader, idle connections closed after 60 s
//   gpstrackd-bench wire --endpoint https://localhost:PORT --ca PEM --restarts N
//                                                  bytes per start (one upload each) with the TLS
//                                                  sessions kept in a file across starts, and without
//   gpstrackd-bench fill DIR --rows N              queue N positions in the spool under DIR (a backlog
//                                                  for the daemon's memory and start-up benchmarks)
//   gpstrackd-bench drain --endpoint URL [--positions N] [--rate R]
//                                                  drain a spool into a tracker emulator (e.g.
//                                                  ../shared/tracker-sim with latency and an rps limit)
//   gpstrackd-bench trickle --endpoint URL [--positions N] [--every MS]
//                                                  positions appended one at a time, as the daemon
//                                                  stores kept ones, each uploaded alone: CPU per
//                                                  position with and without the uploader
import AWSLocation
import Glibc
import Spool
import SystemIO
import TrackingCore
import Uploader

let start = FixTime(iso8601: "2026-11-30T08:00:00Z")!

/// A realistic kept position whose fix time encodes `sequence` (seconds after `start`).
func position(_ sequence: Int) -> Location {
    Location(
        time: start.adding(seconds: Double(sequence)), mode: .threeD,
        latitude: 52.5 + Double(sequence % 10_000) * 1e-5, longitude: 13.4 + Double(sequence % 7_000) * 1e-5,
        altitudeMSL: 34.5, altitudeHAE: 79.0, course: Double(sequence % 360), speed: 12.3, climb: 0.1,
        heading: 91.5, horizontalAccuracy: 4.2, verticalAccuracy: 7.9, speedAccuracy: 0.3, courseAccuracy: 2.5,
        device: "/dev/ttyACM0")!
}

/// `write_bytes` of this process from /proc/self/io: bytes this process caused to be sent to storage.
func writeBytes() -> Int64 {
    let fd = open("/proc/self/io", O_RDONLY)
    guard fd >= 0 else { return 0 }
    defer { close(fd) }
    var buffer = [UInt8](repeating: 0, count: 1024)
    let count = read(fd, &buffer, buffer.count)
    guard count > 0 else { return 0 }
    for line in String(decoding: buffer[0..<count], as: UTF8.self).split(separator: "\n")
    where line.hasPrefix("write_bytes:") {
        return Int64(line.dropFirst("write_bytes:".count).filter { !$0.isWhitespace }) ?? 0
    }
    return 0
}

/// The floor for durable appends: 4 KiB written and fsynced, as fast as the disk allows.
func fsyncsPerSecond(directory: String) -> Double {
    let path = directory + "/fsync-probe"
    let fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
    defer { close(fd); unlink(path) }
    let page = [UInt8](repeating: 0x5A, count: 4096)
    let clock = ContinuousClock()
    let begin = clock.now
    var count = 0
    while clock.now - begin < .seconds(1) {
        _ = page.withUnsafeBytes { write(fd, $0.baseAddress, 4096) }
        fsync(fd)
        count += 1
    }
    return Double(count) / (clock.now - begin).seconds
}

/// `value` with `digits` decimals.
func fixed(_ value: Double, _ digits: Int = 0) -> String {
    guard value.isFinite else { return "\(value)" }
    var scale = 1.0
    for _ in 0..<digits { scale *= 10 }
    let scaled = (abs(value) * scale).rounded()
    let whole = Int(scaled / scale)
    let fraction = Int(scaled) - whole * Int(scale)
    let sign = value < 0 && scaled > 0 ? "-" : ""
    guard digits > 0 else { return sign + String(whole) }
    let digitsText = String(fraction)
    return sign + String(whole) + "." + String(repeating: "0", count: digits - digitsText.count) + digitsText
}

/// One figure: a row for the reader on standard error, and a JSON line on standard output for
/// `Benchmarks/run` (`{"figure", "value", "number", "target"}`; `number` is the value's first
/// word as a number, when it is one).
func line(_ name: String, _ value: String, _ target: String) {
    say(name.padding(46) + value.padding(24) + target)
    guard name != "figure" else { return }
    var members: [String: JSONValue] = [
        "figure": .string(String(name.drop { $0 == " " })), "value": .string(value), "target": .string(target),
    ]
    if let number = value.split(separator: " ").first.flatMap({ Double($0) }).flatMap(JSONValue.number) { members["number"] = number }
    print(String(decoding: JSONValue.object(members).bytes, as: UTF8.self))
}

/// Text for the reader, on standard error (standard output carries the figures as JSON lines).
func say(_ text: String) {
    try? FileDescriptor.standardError.writeAll(text + "\n")
}

extension String {
    func padding(_ width: Int) -> String { count >= width ? self + " " : self + String(repeating: " ", count: width - count) }
}

func benchmarkSpool(rows: Int, directory: String) async throws {
    let clock = ContinuousClock()
    system("rm -rf '\(directory)'")
    say("spool benchmark in \(directory)")
    system("mkdir -p '\(directory)'")
    let floor = fsyncsPerSecond(directory: directory)
    line("figure", "measured", "target")

    // 1. Durable appends per second, each its own fsynced transaction.
    let appendSpool = try await Spool.open(.init(directory: directory + "/append"))
    let appendCount = 5000
    var begin = clock.now
    for n in 0..<appendCount { try await appendSpool.append(position(n)) }
    let appendRate = Double(appendCount) / (clock.now - begin).seconds
    line("durable appends/s", fixed(appendRate), ">= 2000")
    line("  vs 4 KiB write+fsync/s (same disk)", "\(fixed(floor)) (\(fixed(appendRate / floor, 2))x)", "reference floor")

    // 2. Bytes written to storage per appended position (one commit per position, as at 1 Hz).
    let before = writeBytes()
    for n in appendCount..<(appendCount + 2000) { try await appendSpool.append(position(n)) }
    let perPosition = Double(writeBytes() - before) / 2000 / 1024
    line("KiB written per position", fixed(perPosition, 2), "<= 8.5")

    // 3. A large spool: open time, then peek + ack throughput in uploader-sized batches.
    try await fill(directory: directory + "/big", rows: rows)
    begin = clock.now
    let big = try await Spool.open(.init(directory: directory + "/big"))
    let openTime = (clock.now - begin).seconds * 1000
    line("open time, \(rows) rows (ms)", fixed(openTime, 1), "< 200")
    for batch in [10, 100] {
        begin = clock.now
        var moved = 0
        while moved < 50_000 {
            let rowsOut = try await big.peek(limit: batch)
            try await big.ack(rowsOut.map(\.id))
            moved += rowsOut.count
        }
        line("peek+ack rows/s, batches of \(batch)", fixed(Double(moved) / (clock.now - begin).seconds), ">= 50000")
    }
    let stats = try await big.statistics()
    line("spool file after", "\(stats.fileBytes / 1_048_576) MiB, \(stats.queued) rows", "")
}

/// Queues `rows` positions in the spool under `directory`, in chunks of one transaction each.
func fill(directory: String, rows: Int) async throws {
    let spool = try await Spool.open(.init(directory: directory))
    var n = 0
    while n < rows {
        let chunk = min(50_000, rows - n)
        try await spool.append(contentsOf: (n..<(n + chunk)).map(position))
        n += chunk
    }
    say("queued \(try await spool.statistics().queued) positions in \(directory)")
}

func appendLoop(directory: String) async throws {
    let spool = try await Spool.open(.init(directory: directory))
    var sequence = 0
    if let newest = try await spool.statistics().newest {
        sequence = Int(start.seconds(to: newest).rounded()) + 1
    }
    while true {
        try await spool.append(position(sequence))
        let text = "\(sequence)\n"
        _ = text.withCString { write(1, $0, strlen($0)) }
        sequence += 1
    }
}

/// A benchmark's own directory under `$TMPDIR` (else /tmp), emptied by the benchmark that uses it:
/// a test run that starts a benchmark keeps it inside the run's own directory.
func scratchDirectory(_ name: String) -> String {
    let base = getenv("TMPDIR").map { String(cString: $0) }.flatMap { $0.isEmpty ? nil : $0 } ?? "/tmp"
    return base + "/gpstrackd-bench-" + name
}

var arguments = CommandLine.arguments.dropFirst()
switch arguments.popFirst() {
case "spool":
    var rows = 1_000_000
    var directory = scratchDirectory("spool")
    while let flag = arguments.popFirst() {
        switch flag {
        case "--rows": rows = Int(arguments.popFirst() ?? "") ?? rows
        case "--dir": directory = arguments.popFirst() ?? directory
        default: print("unknown option \(flag)"); exit(64)
        }
    }
    try await benchmarkSpool(rows: rows, directory: directory)
case "drain":
    let options = UploadOptions.parse(&arguments, command: "drain", positions: 100_000)
    try await benchmarkDrain(endpoint: options.endpoint, positions: options.positions, rate: options.rate,
                             inFlight: options.inFlight, directory: scratchDirectory("drain"))
case "trickle":
    let options = UploadOptions.parse(&arguments, command: "trickle", positions: 1000)
    try await benchmarkTrickle(endpoint: options.endpoint, positions: options.positions, every: options.every,
                               directory: scratchDirectory("trickle"))
case "filter":
    var seconds = 3 * 3600
    var seed: UInt64 = 16
    while let flag = arguments.popFirst() {
        switch flag {
        case "--seconds": seconds = Int(arguments.popFirst() ?? "") ?? seconds
        case "--seed": seed = UInt64(arguments.popFirst() ?? "") ?? seed
        default: print("unknown option \(flag)"); exit(64)
        }
    }
    benchmarkFilter(seconds: seconds, seed: seed)
case "wire":
    var (endpoint, caFile, positions, every, idleClose) = ("", "", 20, 2500, 2.0)
    var (drive, speedup, uploadInterval, keepAliveEvery): (String?, Double, Double?, Double?) = (nil, 10, nil, nil)
    var restarts: Int?
    while let flag = arguments.popFirst() {
        switch flag {
        case "--drive": drive = arguments.popFirst()
        case "--restarts": restarts = Int(arguments.popFirst() ?? "")
        case "--speedup": speedup = Double(arguments.popFirst() ?? "") ?? speedup
        case "--upload-interval": uploadInterval = Double(arguments.popFirst() ?? "")
        case "--endpoint": endpoint = arguments.popFirst() ?? ""
        case "--ca": caFile = arguments.popFirst() ?? ""
        case "--positions": positions = Int(arguments.popFirst() ?? "") ?? positions
        case "--every": every = Int(arguments.popFirst() ?? "") ?? every
        case "--idle-close": idleClose = Double(arguments.popFirst() ?? "") ?? idleClose
        case "--keepalive": keepAliveEvery = Double(arguments.popFirst() ?? "")
        default: print("unknown option \(flag)"); exit(64)
        }
    }
    if let restarts {
        try await benchmarkWireRestarts(endpoint: endpoint, caFile: caFile, starts: restarts)
    } else if let drive {
        // The daemon's keepalives unless told otherwise (0: none).
        let keepAliveSeconds = keepAliveEvery ?? Double(IdleKeepAlive().every.components.seconds)
        try await benchmarkWireDrive(endpoint: endpoint, caFile: caFile, drive: drive, speedup: speedup, uploadInterval: uploadInterval,
                                     keepAliveEvery: keepAliveSeconds)
    } else {
        // Every position meets a closed connection unless keepalives are asked for.
        try await benchmarkWire(endpoint: endpoint, caFile: caFile, positions: positions, every: every, idleClose: idleClose,
                                keepAliveEvery: keepAliveEvery)
    }
case "live":
    var (endpoint, queued, liveSeconds) = ("", 50_000, 120)
    while let flag = arguments.popFirst() {
        switch flag {
        case "--endpoint": endpoint = arguments.popFirst() ?? ""
        case "--queued": queued = Int(arguments.popFirst() ?? "") ?? queued
        case "--seconds": liveSeconds = Int(arguments.popFirst() ?? "") ?? liveSeconds
        default: print("unknown option \(flag)"); exit(64)
        }
    }
    try await benchmarkLive(endpoint: endpoint, queued: queued, seconds: liveSeconds, directory: scratchDirectory("live"))
case "fill":
    guard let directory = arguments.popFirst(), arguments.popFirst() == "--rows",
          let rows = Int(arguments.popFirst() ?? "") else { print("usage: gpstrackd-bench fill DIR --rows N"); exit(64) }
    try await fill(directory: directory, rows: rows)
case "spool-append-loop":
    guard let directory = arguments.popFirst() else { print("usage: gpstrackd-bench spool-append-loop DIR"); exit(64) }
    try await appendLoop(directory: directory)
default:
    print("usage: gpstrackd-bench spool [--rows N] [--dir DIR] | filter [--seconds N] [--seed S] | wire --endpoint URL --ca PEM [...] | drain --endpoint URL [...] | trickle --endpoint URL [...] | live --endpoint URL [--queued N] [--seconds S] | fill DIR --rows N | spool-append-loop DIR")
    exit(64)
}
