import TrackingCore

/// The Amazon Location tracker API: BatchUpdateDevicePosition, GetDevicePositionHistory,
/// GetDevicePosition and DescribeTracker, signed with SigV4 (service `geo`).
///
/// A request rejected because the credentials expired refreshes them once and is sent once more.
public struct TrackerClient: Sendable {
    /// The API's limit on updates per BatchUpdateDevicePosition request.
    public static let maxBatchSize = 10

    public let region: String
    public let endpoint: ServiceEndpoint
    /// Where DescribeTracker goes: the control-plane host `cp.tracking.geo.<region>.amazonaws.com`,
    /// or the one endpoint when `endpoint` is set.
    public let controlEndpoint: ServiceEndpoint
    private let credentials: any CredentialProvider
    private let transport: any HTTPTransport

    /// Bytes this client's requests have put on the wire and taken off it (see `HTTPTransport`).
    public var bytesOnTheWire: Int { transport.bytesOnTheWire }
    private let now: @Sendable () -> FixTime
    private let signingKeys = SigningKeyCache()

    public init(
        region: String, endpoint: ServiceEndpoint? = nil, credentials: any CredentialProvider,
        transport: any HTTPTransport, now: @escaping @Sendable () -> FixTime = SystemClock.now
    ) {
        self.region = region
        self.endpoint = endpoint ?? .tracking(region: region)
        self.controlEndpoint = endpoint ?? .trackingControl(region: region)
        self.credentials = credentials
        self.transport = transport
        self.now = now
    }

    /// Sends up to 10 updates; returns the per-item errors (an empty array: all accepted).
    public func batchUpdateDevicePosition(tracker: String, updates: [DevicePositionUpdate]) async throws(TrackerError) -> [BatchItemError] {
        precondition(updates.count <= Self.maxBatchSize, "BatchUpdateDevicePosition takes at most 10 updates")
        let body = TrackerWire.BatchRequest(Updates: updates.map(TrackerWire.Update.init)).body
        let response = try await send(
            "POST", path: "/tracking/v0/trackers/\(Self.segment(tracker))/positions", body: body,
            operation: "BatchUpdateDevicePosition", tracker: tracker, expectsAnother: true)
        return (TrackerWire.batchErrors(from: response.body) ?? []).map { item in
            BatchItemError(
                deviceID: item.DeviceId ?? "", sampleTime: item.SampleTime.flatMap(FixTime.init(iso8601:)),
                code: item.Code ?? "Unknown", message: item.Message ?? "")
        }
    }

    /// Every stored position of `device` in [start, end), following `NextToken` to the end.
    public func getDevicePositionHistory(tracker: String, device: String, start: FixTime?, end: FixTime?) async throws(TrackerError) -> [DevicePosition] {
        var positions: [DevicePosition] = []
        var token: String?
        repeat {
            let body = TrackerWire.encode(TrackerWire.HistoryRequest(
                StartTimeInclusive: start?.iso8601, EndTimeExclusive: end?.iso8601, NextToken: token, MaxResults: 100))
            let response = try await send(
                "POST", path: "/tracking/v0/trackers/\(Self.segment(tracker))/devices/\(Self.segment(device))/list-positions",
                body: body, operation: "GetDevicePositionHistory", tracker: tracker)
            guard let page = TrackerWire.decode(TrackerWire.HistoryResponse.self, from: response.body) else {
                throw .unexpected(status: response.status, type: "", message: "unreadable history page: \(response.bodyText.prefix(200))")
            }
            positions += page.DevicePositions.compactMap { $0.devicePosition(defaultDevice: device) }
            token = page.NextToken.flatMap { $0.isEmpty ? nil : $0 }
        } while token != nil
        return positions
    }

    /// The latest stored position of `device`.
    public func getDevicePosition(tracker: String, device: String) async throws(TrackerError) -> DevicePosition {
        let response = try await send(
            "GET", path: "/tracking/v0/trackers/\(Self.segment(tracker))/devices/\(Self.segment(device))/positions/latest",
            body: [], operation: "GetDevicePosition", tracker: tracker)
        guard let position = TrackerWire.decode(TrackerWire.Position.self, from: response.body)?.devicePosition(defaultDevice: device) else {
            throw .unexpected(status: response.status, type: "", message: "unreadable position: \(response.bodyText.prefix(200))")
        }
        return position
    }

    /// The tracker's `PositionFiltering` (DescribeTracker). An answer without one is a tracker that
    /// stores every update (the service always names it; a test tracker may not).
    public func describeTracker(_ tracker: String) async throws(TrackerError) -> TrackerFiltering {
        let response = try await send(
            "GET", path: "/tracking/v0/trackers/\(Self.segment(tracker))", body: [], operation: "DescribeTracker",
            tracker: tracker, on: controlEndpoint)
        guard case let .object(members)? = try? JSONValue.parse(response.body) else {
            throw .unexpected(status: response.status, type: "", message: "unreadable tracker description: \(response.bodyText.prefix(200))")
        }
        guard let value = members["PositionFiltering"] else { return .none }
        guard case let .string(text) = value, let filtering = TrackerFiltering(rawValue: text), filtering != .none else {
            throw .unexpected(status: response.status, type: "", message: "unknown PositionFiltering in the tracker description: \(value)")
        }
        return filtering
    }

    /// Signs and sends; on an expired-credentials answer refreshes once and retries once.
    /// `expectsAnother`: the connection is worth keeping open for the next request (uploads).
    private func send(
        _ method: String, path: String, body: [UInt8], operation: String, tracker: String, on target: ServiceEndpoint? = nil,
        expectsAnother: Bool = false
    ) async throws(TrackerError) -> HTTPResponse {
        let endpoint = target ?? self.endpoint
        var refreshed = false
        while true {
            let current: Credentials
            do {
                current = try await credentials.credentials()
            } catch {
                throw .credentials(error)
            }
            // `Content-Type` is the one header a request carries beyond what SigV4 and HTTP/1.1
            // need (32 bytes an upload): the service speaks AWS's restJson1 protocol, whose
            // servers answer a body without it 415 UnsupportedMediaTypeException (Smithy's protocol
            // test `RestJsonWithBodyExpectsApplicationJsonContentTypeNoHeaders`). A GET has no body.
            var request = endpoint.request(
                method: method, path: path,
                headers: body.isEmpty && method == "GET" ? [] : [("Content-Type", "application/json")], body: body)
            request.expectsAnother = expectsAnother
            SigV4Signer(service: "geo", region: region, signing: .required).sign(&request, credentials: current, at: now(), keys: signingKeys)
            let response: HTTPResponse
            do {
                response = try await transport.send(request)
            } catch {
                if case .timeout = error { throw .timeout(error) }
                throw .network(error)
            }
            if response.status == 200 { return response }
            let error = TrackerError.classify(response, operation: operation, tracker: tracker, localTime: now())
            if !refreshed, case .expiredCredentials = error {
                refreshed = true
                await credentials.invalidate()
                continue
            }
            throw error
        }
    }

    /// A path segment, percent-encoded.
    static func segment(_ text: String) -> String { SigV4Signer.uriEncode(text) }
}
