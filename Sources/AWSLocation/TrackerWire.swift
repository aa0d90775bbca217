import TrackingCore

/// The JSON bodies of the tracker API, as Amazon Location defines them.
enum TrackerWire {
    /// The body of BatchUpdateDevicePosition, written directly: it is built for every request.
    struct BatchRequest {
        var Updates: [Update]

        var body: [UInt8] { JSONValue.object(["Updates": .array(Updates.map(\.json))]).bytes }
    }

    struct Accuracy: Codable {
        var Horizontal: Double
    }

    struct Update {
        var DeviceId: String
        var SampleTime: String
        var Position: [Double]
        var Accuracy: Accuracy?
        var PositionProperties: [String: String]?

        init(_ update: DevicePositionUpdate) {
            DeviceId = update.deviceID
            SampleTime = update.sampleTime.wireISO8601
            Position = [update.longitude, update.latitude]
            Accuracy = update.horizontalAccuracy.map { .init(Horizontal: $0) }
            PositionProperties = update.properties.isEmpty ? nil : update.properties
        }

        var json: JSONValue {
            var members: [String: JSONValue] = [
                "DeviceId": .string(DeviceId), "SampleTime": .string(SampleTime),
                "Position": .array(Position.compactMap(JSONValue.number)),
            ]
            if let horizontal = Accuracy.flatMap({ JSONValue.number($0.Horizontal) }) {
                members["Accuracy"] = .object(["Horizontal": horizontal])
            }
            if let properties = PositionProperties { members["PositionProperties"] = .object(properties.mapValues(JSONValue.string)) }
            return .object(members)
        }
    }

    /// One entry of a BatchUpdateDevicePosition response's `Errors`.
    struct ItemError: Equatable {
        var DeviceId: String?
        var SampleTime: String?
        var Code: String?
        var Message: String?
    }

    /// The `Errors` of a BatchUpdateDevicePosition response (read from the parsed document: the
    /// answer to every upload, so it skips the Codable machinery); nil when the body is not a JSON
    /// object. Entries that are not objects are skipped, missing fields are nil.
    static func batchErrors(from body: [UInt8]) -> [ItemError]? {
        guard case let .object(members)? = try? JSONValue.parse(body) else { return nil }
        guard case let .array(items)? = members["Errors"] else { return [] }
        return items.compactMap { item -> ItemError? in
            guard case let .object(fields) = item else { return nil }
            var error: [String: JSONValue] = [:]
            if case let .object(body)? = fields["Error"] { error = body }
            return ItemError(
                DeviceId: fields["DeviceId"]?.stringValue, SampleTime: fields["SampleTime"]?.stringValue,
                Code: error["Code"]?.stringValue, Message: error["Message"]?.stringValue)
        }
    }

    struct HistoryRequest: Encodable {
        var StartTimeInclusive: String?
        var EndTimeExclusive: String?
        var NextToken: String?
        var MaxResults: Int?
    }

    struct HistoryResponse: Decodable {
        var DevicePositions: [Position]
        var NextToken: String?
    }

    struct Position: Decodable {
        var DeviceId: String?
        var SampleTime: String
        var ReceivedTime: String?
        var Position: [Double]
        var Accuracy: Accuracy?
        var PositionProperties: [String: String]?

        func devicePosition(defaultDevice: String) -> DevicePosition? {
            guard Position.count == 2, let sample = FixTime(iso8601: SampleTime) else { return nil }
            return DevicePosition(
                deviceID: DeviceId ?? defaultDevice, sampleTime: sample, receivedTime: ReceivedTime.flatMap(FixTime.init(iso8601:)),
                longitude: Position[0], latitude: Position[1], horizontalAccuracy: Accuracy?.Horizontal,
                properties: PositionProperties ?? [:])
        }
    }

    /// The service's error body: `{"message": "..."}` (REST) or `{"Message": "..."}`.
    struct ServiceError: Decodable {
        var message: String?
        var Message: String?
        var text: String? { message ?? Message }
    }

    static func encode<T: Encodable>(_ value: T) -> [UInt8] {
        (try? JSONCoder.encode(value)) ?? []
    }

    static func decode<T: Decodable>(_ type: T.Type, from body: [UInt8]) -> T? {
        try? JSONCoder.decode(type, from: body)
    }
}

private extension JSONValue {
    var stringValue: String? {
        if case let .string(text) = self { return text }
        return nil
    }
}
