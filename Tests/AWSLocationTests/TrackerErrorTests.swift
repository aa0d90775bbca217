@testable import AWSLocation
import Testing
import TrackingCore

@Suite struct TrackerErrorTests {
    let now = FixTime(iso8601: "2026-11-30T08:00:00Z")!

    func classify(_ status: Int, _ type: String?, _ message: String, headers: [(String, String)] = []) -> TrackerError {
        var all = headers.map { (name: $0.0, value: $0.1) }
        if let type { all.append(("x-amzn-ErrorType", "\(type):http://internal.amazon.com/coral/com.amazonaws.geo/")) }
        let response = HTTPResponse(status: status, headers: all, body: Array("{\"message\":\"\(message)\"}".utf8))
        return TrackerError.classify(response, operation: "BatchUpdateDevicePosition", tracker: "fleet", localTime: now)
    }

    @Test func typesErrorsFromStatusAndErrorType() {
        #expect(classify(429, "ThrottlingException", "Rate exceeded", headers: [("Retry-After", "3")]) == .throttled(retryAfter: 3, message: "Rate exceeded"))
        #expect(classify(400, "ValidationException", "bad") == .validation(message: "bad"))
        #expect(classify(403, "AccessDeniedException", "no") == .accessDenied(operation: "BatchUpdateDevicePosition", tracker: "fleet", message: "no"))
        #expect(classify(404, "ResourceNotFoundException", "gone") == .resourceNotFound(tracker: "fleet", message: "gone"))
        #expect(classify(409, "ConflictException", "c") == .conflict(message: "c"))
        #expect(classify(500, "InternalServerException", "oops") == .internalError(status: 500, message: "oops"))
        #expect(classify(503, nil, "unavailable") == .internalError(status: 503, message: "unavailable"))
        #expect(classify(403, "ExpiredTokenException", "The security token included in the request is expired") == .expiredCredentials(message: "The security token included in the request is expired"))
        #expect(classify(403, "UnrecognizedClientException", "The security token included in the request is invalid.") == .invalidCredentials(message: "The security token included in the request is invalid."))
        #expect(classify(403, "InvalidSignatureException", "The request signature we calculated does not match") == .signatureMismatch(message: "The request signature we calculated does not match"))
    }

    @Test func clockSkewSaysHowFarOffAndWhatToDo() {
        // The service's clock is 7 minutes ahead of ours.
        let error = classify(403, "InvalidSignatureException", "Signature expired: 20261130T075300Z is now earlier than 20261130T080200Z (20261130T080700Z - 5 min.)",
                             headers: [("Date", "Mon, 30 Nov 2026 08:07:00 GMT")])
        guard case let .clockSkew(offset, _) = error else {
            Issue.record("not clock skew: \(error)")
            return
        }
        #expect(offset == 420)
        #expect(error.description.hasPrefix("clock is 7 min off; the request signature is only valid for 5 min — is NTP running?"))
    }

    @Test func accessDeniedNamesThePolicyToFix() {
        #expect(classify(403, "AccessDeniedException", "denied").description
            == "access denied (denied): the IAM policy must allow geo:BatchUpdateDevicePosition on arn:aws:geo:<region>:<account>:tracker/fleet")
    }

    @Test func transientErrorsAreRetryable() {
        #expect(classify(429, "ThrottlingException", "x").disposition == .slowDown(after: nil))
        #expect(classify(500, nil, "x").disposition == .retry(after: nil))
        #expect(classify(409, "ConflictException", "x").disposition == .retry(after: nil), "as the uploader retries it")
        #expect(classify(400, "ValidationException", "x").disposition == .bisect)
        #expect(classify(403, "AccessDeniedException", "x").disposition == .misconfigured)
        #expect(classify(404, "ResourceNotFoundException", "x").disposition == .misconfigured)
    }
}

@Suite struct ServiceEndpointTests {
    @Test func parsesHTTPSAndLoopbackHTTP() throws {
        #expect(try ServiceEndpoint("https://tracking.geo.eu-west-1.amazonaws.com/") == ServiceEndpoint(host: "tracking.geo.eu-west-1.amazonaws.com"))
        #expect(try ServiceEndpoint("http://127.0.0.1:8787") == ServiceEndpoint(scheme: "http", host: "127.0.0.1", port: 8787))
        #expect(try ServiceEndpoint("http://[::1]:80").host == "::1")
        #expect(ServiceEndpoint.tracking(region: "eu-central-1").description == "https://tracking.geo.eu-central-1.amazonaws.com")
    }

    @Test func refusesPlainHTTPBeyondLoopback() {
        #expect(throws: ServiceEndpoint.Invalid.self) { try ServiceEndpoint("http://10.0.0.5:8787") }
        #expect(throws: ServiceEndpoint.Invalid.self) { try ServiceEndpoint("tracking.geo.eu-west-1.amazonaws.com") }
        #expect(throws: ServiceEndpoint.Invalid.self) { try ServiceEndpoint("https://host/path") }
        #expect(throws: ServiceEndpoint.Invalid.self) { try ServiceEndpoint("ftp://host") }
    }

    @Test func loopbackIsALiteralAddressOrLocalhostNotAPrefix() throws {
        for text in ["http://127.evil.example.com:8080", "http://127.0.0.1.evil.example.com", "http://127.1:80",
                     "http://localhost.evil.example.com", "http://[::2]:80", "http://0x7f000001"] {
            #expect(throws: ServiceEndpoint.Invalid.self, "\(text)") { try ServiceEndpoint(text) }
        }
        #expect(try ServiceEndpoint("http://127.3.4.5:8080").host == "127.3.4.5")
        #expect(try ServiceEndpoint("http://LOCALHOST:8080").host == "LOCALHOST")
        #expect(try ServiceEndpoint("http://[0:0:0:0:0:0:0:1]:80").host == "0:0:0:0:0:0:0:1")
    }

    @Test func refusesUserInformationInTheEndpoint() {
        for text in ["http://127.0.0.1@evil.example.com", "https://user:pass@tracking.geo.eu-west-1.amazonaws.com",
                     "http://evil.example.com@127.0.0.1:8080"] {
            do {
                _ = try ServiceEndpoint(text)
                Issue.record("accepted \(text)")
            } catch {
                #expect(error.reason.contains("user information"), "\(text): \(error)")
            }
        }
    }
}

@Suite struct DevicePositionUpdateTests {
    @Test func carriesFixTimePositionAccuracyAndShortProperties() throws {
        let location = try #require(Location(
            time: FixTime(iso8601: "2026-11-30T08:00:01.250Z")!, mode: .threeD, latitude: 52.5, longitude: 13.4,
            altitudeMSL: 34.56, course: 271.04, speed: 12.3456, heading: 90, horizontalAccuracy: 4.5))
        let update = DevicePositionUpdate(deviceID: "truck-7", location: location)
        #expect(update.sampleTime.iso8601 == "2026-11-30T08:00:01.250Z")
        #expect(update.longitude == 13.4 && update.latitude == 52.5)
        #expect(update.horizontalAccuracy == 4.5)
        #expect(update.properties == ["speed": "12.3", "course": "271"])
        let many = DevicePositionUpdate(deviceID: "d", location: location, properties: [.speed, .course, .heading, .altitude, .mode])
        #expect(many.properties.count == 4, "the API allows at most 4")
        #expect(many.properties["altitude"] == "35")
        #expect(many.properties["heading"] == "90")
        let north = try #require(Location(
            time: location.time, mode: .threeD, latitude: 52.5, longitude: 13.4, course: 359.6, speed: 8.04, heading: 359.5))
        #expect(DevicePositionUpdate(deviceID: "d", location: north, properties: [.speed, .course, .heading]).properties
                == ["speed": "8", "course": "0", "heading": "0"], "a bearing that rounds to 360 is north")
        let body = String(decoding: TrackerWire.BatchRequest(Updates: [.init(update)]).body, as: UTF8.self)
        #expect(body == #"{"Updates":[{"Accuracy":{"Horizontal":4.5},"DeviceId":"truck-7","Position":[13.4,52.5],"PositionProperties":{"course":"271","speed":"12.3"},"SampleTime":"2026-11-30T08:00:01.250Z"}]}"#)
    }

    /// A standing vehicle's course is its receiver's noise: it stays home below 1 m/s, while its
    /// speed (0 says "standing") and a heading (a compass holds still) still travel.
    @Test func leavesOutTheCourseOfAVehicleThatStands() throws {
        func properties(speed: Double?) throws -> [String: String] {
            let location = try #require(Location(
                time: FixTime(iso8601: "2026-11-30T08:00:01Z")!, mode: .threeD, latitude: 52.5, longitude: 13.4,
                course: 198.4, speed: speed, heading: 90.2))
            return DevicePositionUpdate(deviceID: "d", location: location, properties: [.speed, .course, .heading]).properties
        }
        #expect(try properties(speed: 0.134) == ["speed": "0.1", "heading": "90"])
        #expect(try properties(speed: 0.99) == ["speed": "1", "heading": "90"], "0.99 m/s travels as 1 but is under it")
        #expect(try properties(speed: 1.0) == ["speed": "1", "course": "198", "heading": "90"])
        #expect(try properties(speed: nil) == ["course": "198", "heading": "90"], "with no speed, nothing says it stands")
    }

    /// gpsd gives coordinates to 9 decimals and an accuracy of 19 m times the HDOP: they travel
    /// to 1e-6 degrees and two significant figures (`WirePrecision`), 8 bytes fewer here.
    @Test func carriesPositionAndAccuracyAtTheWiresPrecision() throws {
        let location = try #require(Location(
            time: FixTime(iso8601: "2026-11-30T08:00:01Z")!, mode: .threeD, latitude: 52.516294167, longitude: 13.377718833,
            horizontalAccuracy: 22.8))
        let update = DevicePositionUpdate(deviceID: "truck-7", location: location, properties: [])
        #expect(update.latitude == 52.516294 && update.longitude == 13.377719)
        #expect(update.horizontalAccuracy == 23)
        let body = String(decoding: TrackerWire.BatchRequest(Updates: [.init(update)]).body, as: UTF8.self)
        #expect(body == #"{"Updates":[{"Accuracy":{"Horizontal":23},"DeviceId":"truck-7","Position":[13.377719,52.516294],"SampleTime":"2026-11-30T08:00:01Z"}]}"#)
    }

    @Test func readsTheItemErrorsOfABatchResponse() {
        let body = Array(#"""
            {"Errors":[{"DeviceId":"truck-7","SampleTime":"2026-11-30T08:00:01.250Z","Error":{"Code":"ValidationException","Message":"bad position"}},
            "not an object", {"DeviceId":"truck-8"}]}
            """#.utf8)
        #expect(TrackerWire.batchErrors(from: body) == [
            .init(DeviceId: "truck-7", SampleTime: "2026-11-30T08:00:01.250Z", Code: "ValidationException", Message: "bad position"),
            .init(DeviceId: "truck-8", SampleTime: nil, Code: nil, Message: nil),
        ])
        #expect(TrackerWire.batchErrors(from: Array(#"{"Errors":[]}"#.utf8)) == [])
        #expect(TrackerWire.batchErrors(from: Array("{}".utf8)) == [], "no Errors: every update accepted")
        #expect(TrackerWire.batchErrors(from: Array("<html>".utf8)) == nil)
        #expect(TrackerWire.batchErrors(from: Array("[1]".utf8)) == nil)
    }
}
