import CGPS
import Glibc
import SystemIO
import TrackingCore

/// One open libgps connection to gpsd in JSON watch mode.
///
/// Owns its `gps_data_t` (a large C struct, kept on the heap) and closes it in `deinit`.
/// Not thread-safe: one reader thread owns it for its whole life.
final class GPSDSession {
    /// The result of one `read()`.
    enum ReadResult {
        /// A complete message.
        case report(GPSDReport)
        /// Only part of a line has arrived so far.
        case incomplete
        /// The connection ended; the session is unusable.
        case disconnected(reason: String)
        /// gpsd sent a line longer than libgps's buffer (about 20 KB): libgps cannot read past it,
        /// so the session is unusable although the connection is up.
        case oversizedLine
    }

    let endpoint: GPSDEndpoint
    private let data: UnsafeMutablePointer<gps_data_t>
    private let message: UnsafeMutablePointer<CChar>
    private let messageCapacity = 8192
    private var isOpen = false

    /// Connects to gpsd and asks it to stream JSON reports.
    init(endpoint: GPSDEndpoint) throws(GPSDError) {
        self.endpoint = endpoint
        data = .allocate(capacity: 1)
        memset(data, 0, MemoryLayout<gps_data_t>.size)
        message = .allocate(capacity: messageCapacity + 1)
        message.initialize(repeating: 0, count: messageCapacity + 1)
        gpstrackd_clear_errno()
        let status = gps_open(endpoint.host, String(endpoint.port), data)
        if status != 0 {
            let code = gpstrackd_errno()
            throw .connectFailed(endpoint: endpoint, reason: Self.describe(libgpsError: code))
        }
        isOpen = true
        if BrokenPipe.withoutSignal({ gps_stream(data, gpstrackd_watch_json(), nil) }) != 0 {
            let reason = Self.describe(errno: gpstrackd_errno())
            throw .watchFailed(endpoint: endpoint, reason: reason)
        }
    }

    deinit {
        if isOpen { _ = gps_close(data) }
        data.deallocate()
        message.deallocate()
    }

    /// The connection's socket (owned by libgps, closed with the session).
    var socket: Int32 { Int32(data.pointee.gps_fd) }

    /// Waits up to `microseconds` for data; true when a read will not block.
    func waitForData(microseconds: Int32) -> Bool {
        gps_waiting(data, microseconds)
    }

    /// Reads and decodes one message.
    ///
    /// libgps returns -1 both when the connection ends and when it cannot parse a line (3.22 fails
    /// on `DEVICE` with `"activated":0`). The two are told apart by the message buffer: libgps
    /// copies a complete line there before parsing it, and never on a disconnect.
    func read() -> ReadResult {
        // `set` accumulates across reads in libgps; clear it so it tells what this read filled.
        data.pointee.set = 0
        message[0] = 0
        gpstrackd_clear_errno()
        let status = gps_read(data, message, Int32(messageCapacity))
        let code = gpstrackd_errno()
        let line = RawLine(base: message)
        if status == 0 { return .incomplete }
        if status < 0 {
            if line.isEmpty {
                if code == 0, connectionIsUp { return .oversizedLine }
                return .disconnected(reason: code == 0 ? "gpsd closed the connection" : Self.describe(errno: code))
            }
            switch GPSDReport.classify(line) {
            case nil where line.string(#""class":""#) == "ATT":
                return .report(GPSDReport.salvageAttitude(line))
            case .some(.other), nil:
                return .report(.unparsable(line: line.text))
            case let .some(report):
                return .report(report)
            }
        }
        // TPV first: several arrive for each fix, and they need no look at the raw line.
        let set = data.pointee.set
        if line.hasPrefix(#"{"class":"TPV""#), set & gpstrackd_mode_set() != 0 {
            return .report(.tpv(tpvReport(set: set)))
        }
        if let report = GPSDReport.classify(line) {
            return .report(report)
        }
        switch line.string(#""class":""#) {
        case "GST":
            return .report(errorEstimate(set: set))
        case "ATT":
            let heading = gpstrackd_attitude_heading(data)
            if set & gpstrackd_attitude_set() != 0, heading.isFinite, line.after(#""heading":"#) != nil {
                return .report(.attitude(heading: heading, time: GPSDReport.time(of: line)))
            }
            // gpsd 3.22 writes broken ATT JSON when the receiver also sends GST (the two share a
            // union): `"device":"...",,"time":"...""heading":89.750,...`. libgps gives up on it;
            // the heading itself is intact, so take it from the raw line.
            return .report(GPSDReport.salvageAttitude(line))
        default:
            break
        }
        guard set & gpstrackd_mode_set() != 0 else { return .report(.unparsable(line: line.text)) }
        return .report(.tpv(tpvReport(set: set)))
    }

    /// Whether the socket is still open: libgps failing with nothing in its message buffer on an
    /// open connection means its line buffer filled without a line end.
    private var connectionIsUp: Bool {
        var byte: UInt8 = 0
        let peeked = recv(socket, &byte, 1, Int32(MSG_PEEK | MSG_DONTWAIT))
        return peeked > 0 || (peeked < 0 && (errno == EAGAIN || errno == EWOULDBLOCK))
    }

    /// A GST report's errors, when libgps read them and they say something.
    private func errorEstimate(set: gps_mask_t) -> GPSDReport {
        guard set & gpstrackd_gst_set() != 0 else { return .other(className: "GST") }
        let stamp = gpstrackd_gst_time(data)
        let time = stamp.tv_sec > 0 ? FixTime(seconds: Int64(stamp.tv_sec), nanoseconds: Int64(stamp.tv_nsec)) : nil
        let estimate = ErrorEstimate(
            time: time, latitudeError: gpstrackd_gst_latitude_error(data), longitudeError: gpstrackd_gst_longitude_error(data))
        return estimate.map { .errorEstimate($0) } ?? .other(className: "GST")
    }

    private func tpvReport(set: gps_mask_t) -> TPVReport {
        let fix = data.pointee.fix
        let time: FixTime? = set & gpstrackd_time_set() != 0
            ? FixTime(seconds: Int64(fix.time.tv_sec), nanoseconds: Int64(fix.time.tv_nsec))
            : nil
        let hasPosition = set & gpstrackd_latlon_set() != 0
        let device = withUnsafeBytes(of: data.pointee.dev.path) { raw -> String? in
            guard let base = raw.baseAddress?.assumingMemoryBound(to: CChar.self), raw.count > 0 else { return nil }
            let path = String(cString: base)
            return path.isEmpty ? nil : path
        }
        return TPVReport(
            mode: Int(fix.mode),
            time: time,
            latitude: hasPosition ? fix.latitude : nil,
            longitude: hasPosition ? fix.longitude : nil,
            altitudeMSL: fix.altMSL,
            altitudeHAE: fix.altHAE,
            course: fix.track,
            speed: fix.speed,
            climb: fix.climb,
            eph: fix.eph,
            epx: fix.epx,
            epy: fix.epy,
            epv: fix.epv,
            eps: fix.eps,
            epd: fix.epd,
            device: device
        )
    }

    /// libgps's `gps_open` reports netlib's negative codes through errno, else a plain errno.
    private static func describe(libgpsError code: Int32) -> String {
        if code < 0, let text = gps_errstr(code) { return String(cString: text) }
        if code > 0 { return describe(errno: code) }
        return "unknown error"
    }

    private static func describe(errno code: Int32) -> String {
        guard let text = strerror(code) else { return "errno \(code)" }
        return String(cString: text)
    }
}
