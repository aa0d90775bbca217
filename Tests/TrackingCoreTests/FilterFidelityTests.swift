import Foundation
import Testing
import TestSupport
import TrackingCore

/// The default filter on a generated 12 km drive (parked drift, corners, a red light, a tunnel, a
/// highway curve, a U-turn), as gpsd reported it, measured against the drive's ground truth.
/// Target: max deviation <= 12 m with <= 4 points/km, and at most one point per stationary
/// heartbeat while parked.
@Suite struct FilterFidelityTests {
    static let fixtures = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("Fixtures")

    /// Drives recorded for one run only (`Tests/Routes/check-unseen`): with `GPSTRACKD_DRIVES`
    /// naming their directory, the fidelity suites replay those instead of their own, so that the
    /// filter is checked on roads it has never seen with the suites' own bounds.
    static let unseen = ProcessInfo.processInfo.environment["GPSTRACKD_DRIVES"].map { URL(fileURLWithPath: $0) }

    /// The drives in `unseen` whose names begin with `prefix`, sorted; nil without it.
    static func unseenDrives(prefix: String) -> [String]? {
        guard let unseen else { return nil }
        let names = (try? FileManager.default.contentsOfDirectory(atPath: unseen.path)) ?? []
        return names.filter { $0.hasPrefix(prefix) && $0.hasSuffix(".locations.jsonl") }
            .map { String($0.dropLast(".locations.jsonl".count)) }.sorted()
    }

    /// A drive's file: from `unseen` when it is there, else from the fixtures.
    static func file(_ name: String) -> URL {
        if let unseen, FileManager.default.fileExists(atPath: unseen.appendingPathComponent(name).path) {
            return unseen.appendingPathComponent(name)
        }
        return fixtures.appendingPathComponent(name)
    }

    struct TruthPoint { var point: TrackFidelity.PathPoint; var phase: String; var speed: Double }

    static func truth(_ name: String) throws -> [TruthPoint] {
        try String(contentsOf: file(name), encoding: .utf8)
            .split(whereSeparator: \.isNewline).map { line in
                guard let object = try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any],
                      let text = object["time"] as? String, let time = FixTime(iso8601: text),
                      let lat = (object["lat"] as? NSNumber)?.doubleValue,
                      let lon = (object["lon"] as? NSNumber)?.doubleValue
                else { throw LocationLine.Malformed(line: String(line)) }
                return TruthPoint(point: .init(time: time, latitude: lat, longitude: lon), phase: object["phase"] as? String ?? "",
                                  speed: (object["speed"] as? NSNumber)?.doubleValue ?? 0)
            }
    }

    /// Whether a fix was made while the vehicle moved: the true speed at its time at least
    /// `stoppedSpeed` (the receiver's own speed drifts while it stands).
    static func isMoving(by truth: [TruthPoint], stoppedSpeed: Double) -> (Location) -> Bool {
        let speedByTime = Dictionary(truth.map { ($0.point.time, $0.speed) }, uniquingKeysWith: { a, _ in a })
        return { (speedByTime[$0.time] ?? 0) >= stoppedSpeed }
    }

    static func locations(_ name: String) throws -> [Location] {
        try String(contentsOf: file(name), encoding: .utf8)
            .split(whereSeparator: \.isNewline).map { try LocationLine.parse(String($0)) }
    }

    /// `locations` through the filter: what it kept, the chain as it ended (its counters), and the
    /// fixes the quality gate let through, which any track the filter keeps is chosen from (a
    /// receiver's first fix, 1,898 m "accurate", is not one of them).
    static func run(_ locations: [Location], configuration: FilterConfiguration = FilterConfiguration())
        -> (kept: [KeptLocation], chain: FilterChain, passed: [Location])
    {
        let replay = FilterReplay(locations, configuration: configuration,
                                  clock: ClockReading(now: FixTime(iso8601: "2026-11-30T00:00:00Z")!, synchronized: true))
        return (replay.kept, replay.chain, replay.passed)
    }

    @Test func defaultFilterMeetsTheFidelityTarget() throws {
        let truth = try Self.truth("drive-seed7.truth.jsonl")
        let locations = try Self.locations("drive-seed7.locations.jsonl")
        let (kept, chain, _) = Self.run(locations)
        let fidelity = TrackFidelity(kept: kept.map(\.location), path: truth.map(\.point))
        let phaseByTime = Dictionary(uniqueKeysWithValues: truth.map { ($0.point.time, $0.phase) })
        let parked = kept.filter { phaseByTime[$0.location.time] == "parked" }
        let fewest = FewestPoints.count(locations, tolerance: FilterConfiguration().maxDeviation) { ($0.speed ?? 0) >= FilterConfiguration().stoppedSpeed }
        print("fidelity: \(fidelity.pointCount) points (\(String(format: "%.2f", Double(fidelity.pointCount) / Double(fewest)))x the fewest, \(fewest)), \(String(format: "%.2f", fidelity.pointsPerKilometre))/km over \(String(format: "%.2f", fidelity.pathKilometres)) km, max deviation \(String(format: "%.1f", fidelity.maxDeviation)) m at \(fidelity.worstTime?.iso8601 ?? "-"), parked \(parked.count); \(chain.counters.summary)")
        #expect(fidelity.pathKilometres > 12)
        #expect(fidelity.pointsPerKilometre <= 4.0)
        #expect(fidelity.maxDeviation <= 12.0)
        // Two parked periods (90 s and 120 s, both shorter than the 900 s heartbeat): one point each.
        #expect(parked.count <= 2)
        for (a, b) in zip(kept, kept.dropFirst()) { #expect(a.location.time < b.location.time) }
    }
}
