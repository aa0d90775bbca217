import AWSLocation
import Spool
import TrackingCore

/// Where the uploader delivers positions: the tracker, or a file. One shape for both, so that
/// batching, the interval, backoff, statistics, liveness and reload are the uploader's alone.
public protocol Destination: Sendable {
    /// How it is named in status and the log ("the tracker", "the file /var/lib/...").
    var name: String { get }
    /// How the uploader may use it: batch size, requests at once, whether a request rate applies.
    func limits(_ configuration: Uploader.Configuration) -> DestinationLimits
    /// Delivers `batch` (oldest first): an outcome for each position, in order, or a failure of
    /// the whole delivery.
    func deliver(_ batch: [SpooledPosition], _ configuration: Uploader.Configuration) async throws(DeliveryFailure) -> [PositionOutcome]
    /// Bytes its deliveries have put on the wire so far (a network destination's), for `data-budget`.
    var bytesOnTheWire: Int { get }
}

extension Destination {
    public var bytesOnTheWire: Int { 0 }
}

/// How a destination is used.
public struct DestinationLimits: Sendable, Equatable {
    public var batchSize: Int
    public var maxInFlight: Int
    /// A network service under a shared quota: requests go through the token bucket.
    public var rateLimited: Bool
    /// Whatever is queued at a stop is delivered before the uploader returns (a file the operator
    /// reads; the tracker's queue waits durably for the next start instead).
    public var drainsOnStop: Bool
    /// A partial batch's wait counts from its oldest fix's time (the tracker: the delay from fix
    /// to map stays near `upload-interval`), or from when it was first seen (the file: one write
    /// per interval also when old fixes are replayed or a backlog comes).
    public var waitsFromFixTime: Bool
    /// With a backlog, the newest positions go ahead of it (the tracker: its latest position is
    /// what the map shows); a file keeps the order it was written in.
    public var livesFirst: Bool

    public init(batchSize: Int, maxInFlight: Int, rateLimited: Bool, drainsOnStop: Bool, waitsFromFixTime: Bool, livesFirst: Bool = false) {
        self.batchSize = batchSize
        self.maxInFlight = maxInFlight
        self.rateLimited = rateLimited
        self.drainsOnStop = drainsOnStop
        self.waitsFromFixTime = waitsFromFixTime
        self.livesFirst = livesFirst
    }
}

/// What became of one position.
public enum PositionOutcome: Sendable, Equatable {
    case stored
    /// Send it again later (the tracker's `InternalServerError`).
    case retryLater
    /// Send it again later, and more slowly: the account's quota was exceeded (`ThrottlingError`).
    case throttled
    /// Refused for good: it goes to the dead-letter table with the code and the words.
    case refused(code: String, message: String)
}

/// A delivery that failed as a whole: what to say and what to do about it.
public struct DeliveryFailure: Error, Sendable, Equatable, CustomStringConvertible {
    public var reason: String
    public var disposition: TrackerError.Disposition
    /// For a bisected batch's single position: the words that go with it to the dead letters.
    public var detail: String?

    public init(_ reason: String, disposition: TrackerError.Disposition, detail: String? = nil) {
        self.reason = reason
        self.disposition = disposition
        self.detail = detail
    }

    public var description: String { reason }
}

/// The Amazon Location tracker: batches of up to 10 under the request rate; the queue waits
/// durably across a stop.
public struct TrackerDestination: Destination {
    public let client: TrackerClient

    public init(client: TrackerClient) { self.client = client }

    public var name: String { "the tracker" }

    public var bytesOnTheWire: Int { client.bytesOnTheWire }

    public func limits(_ configuration: Uploader.Configuration) -> DestinationLimits {
        DestinationLimits(batchSize: configuration.batchSize, maxInFlight: configuration.maxInFlight, rateLimited: true, drainsOnStop: false,
                          waitsFromFixTime: true, livesFirst: true)
    }

    public func deliver(_ batch: [SpooledPosition], _ configuration: Uploader.Configuration) async throws(DeliveryFailure) -> [PositionOutcome] {
        let updates = batch.map { DevicePositionUpdate(deviceID: configuration.deviceID, location: $0.location, properties: configuration.properties) }
        let itemErrors: [BatchItemError]
        do {
            itemErrors = try await client.batchUpdateDevicePosition(tracker: configuration.tracker, updates: updates)
        } catch {
            var detail: String?
            if case let .validation(message) = error { detail = message }
            throw DeliveryFailure(error.description, disposition: error.disposition, detail: detail)
        }
        return Self.outcomes(batch, itemErrors: itemErrors)
    }

    /// A 200's item errors, position by position: they name a position by its sample time, the
    /// only key the API echoes; a position without one was stored.
    static func outcomes(_ batch: [SpooledPosition], itemErrors: [BatchItemError]) -> [PositionOutcome] {
        var byTime: [FixTime: BatchItemError] = [:]
        for error in itemErrors { if let time = error.sampleTime { byTime[time] = error } }
        return batch.map { row in
            guard let error = byTime[row.location.time] else { return .stored }
            if error.code == "ThrottlingError" { return .throttled }
            return error.isRetryable ? .retryLater : .refused(code: error.code, message: error.message)
        }
    }
}
