import AWSLocation
import Glibc
import SystemIO
import TrackingCore

/// `gpstrackd history`: what the tracker stored for a device (all pages), as JSON lines or GPX —
/// the way an operator checks that positions arrived.
public struct HistoryCommand: Sendable {
    public var options: HistoryOptions
    public var environment: [String: String]
    public var logger: Logger

    public init(options: HistoryOptions, environment: [String: String], logger: Logger) {
        self.options = options
        self.environment = environment
        self.logger = logger
    }

    public func run() async -> ExitCode {
        let now = SystemClock.now()
        guard let start = HistoryOptions.time(options.since, now: now) else {
            StandardError.write("gpstrackd: --since '\(options.since)' is neither a duration (90s, 30m, 6h, 2d) nor an ISO 8601 time\n")
            return .usage
        }
        var end: FixTime?
        if let until = options.until {
            guard let time = HistoryOptions.time(until, now: now) else {
                StandardError.write("gpstrackd: --until '\(until)' is neither a duration nor an ISO 8601 time\n")
                return .usage
            }
            end = time
        }
        guard let region = options.region ?? environment["AWS_REGION"] ?? environment["AWS_DEFAULT_REGION"]
                ?? options.identityPoolID.flatMap({ $0.split(separator: ":").first.map(String.init) })
        else {
            StandardError.write("gpstrackd: no region: set --region (or AWS_REGION)\n")
            return .config
        }
        let device = options.deviceID ?? Self.hostname()
        do throws(OpenSSL.Unavailable) { try OpenSSL.load() } catch {
            StandardError.write("gpstrackd: \(error)\n")
            return .unavailable
        }
        let transport = SocketTransport()
        let resolution: CredentialChain.Resolution
        do {
            resolution = try CredentialSetup.resolve(
                profile: options.profile, identityPoolID: options.identityPoolID, cognitoEndpoint: options.endpoint,
                stateDirectory: options.stateDirectory, environment: environment, transport: transport, logger: logger)
        } catch {
            StandardError.write("gpstrackd: \(error)\n")
            return .config
        }
        logger.debug("using \(resolution.source)")
        let client = TrackerClient(region: region, endpoint: options.endpoint, credentials: resolution.provider, transport: transport)
        let positions: [DevicePosition]
        do {
            positions = try await client.getDevicePositionHistory(tracker: options.tracker ?? "", device: device, start: start, end: end)
        } catch {
            StandardError.write("gpstrackd: \(error)\n")
            return .unavailable
        }
        let text = options.format == .gpx ? Self.gpx(positions, device: device) : positions.map(Self.jsonLine).joined(separator: "\n")
        try? FileDescriptor.standardOutput.writeAll(text.isEmpty ? "" : text + "\n")
        logger.info("history: \(positions.count) positions of \(device) since \(start)")
        return .success
    }

    static func jsonLine(_ p: DevicePosition) -> String {
        var line = "{\"deviceId\":"
        JSONValue.appendQuoted(p.deviceID, to: &line)
        line += ",\"sampleTime\":\"\(p.sampleTime.iso8601)\""
        if let received = p.receivedTime { line += ",\"receivedTime\":\"\(received.iso8601)\"" }
        line += ",\"latitude\":\(p.latitude),\"longitude\":\(p.longitude)"
        if let accuracy = p.horizontalAccuracy { line += ",\"horizontalAccuracy\":\(accuracy)" }
        for key in p.properties.keys.sorted() {
            line += ","
            JSONValue.appendQuoted(key, to: &line)
            line += ":"
            JSONValue.appendQuoted(p.properties[key] ?? "", to: &line)
        }
        return line + "}"
    }

    static func gpx(_ positions: [DevicePosition], device: String) -> String {
        func escape(_ text: String) -> String {
            var out = ""
            for c in text {
                switch c {
                case "&": out += "&amp;"
                case "<": out += "&lt;"
                case ">": out += "&gt;"
                case "\"": out += "&quot;"
                default: out.append(c)
                }
            }
            return out
        }
        var out = "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
        out += "<gpx version=\"1.1\" creator=\"gpstrackd \(Version.string)\" xmlns=\"http://www.topografix.com/GPX/1/1\">\n"
        out += "  <trk><name>\(escape(device))</name><trkseg>\n"
        for p in positions {
            out += "    <trkpt lat=\"\(p.latitude)\" lon=\"\(p.longitude)\"><time>\(p.sampleTime.iso8601)</time></trkpt>\n"
        }
        out += "  </trkseg></trk>\n</gpx>"
        return out
    }

    static func hostname() -> String {
        var buffer = [CChar](repeating: 0, count: 256)
        guard gethostname(&buffer, buffer.count) == 0 else { return "gpstrackd" }
        return String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }
}
