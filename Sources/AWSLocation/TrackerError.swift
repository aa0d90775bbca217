import TrackingCore

/// Why a tracker request failed, typed from the HTTP status and `x-amzn-ErrorType`, with what to do.
public enum TrackerError: Error, Sendable, Equatable, CustomStringConvertible {
    /// 429 / ThrottlingException: slow down; `retryAfter` seconds when the service said.
    case throttled(retryAfter: Double?, message: String)
    /// 400 / ValidationException: the request (or an item in it) is malformed.
    case validation(message: String)
    /// 403 / AccessDeniedException: the IAM policy does not allow the operation.
    case accessDenied(operation: String, tracker: String, message: String)
    /// 404 / ResourceNotFoundException: no such tracker (or device).
    case resourceNotFound(tracker: String, message: String)
    /// 409 / ConflictException.
    case conflict(message: String)
    /// 5xx / InternalServerException: the service failed; retry later.
    case internalError(status: Int, message: String)
    /// The session token has expired.
    case expiredCredentials(message: String)
    /// The access key or session token is not valid.
    case invalidCredentials(message: String)
    /// The signature does not match: usually a wrong secret key.
    case signatureMismatch(message: String)
    /// The local clock is too far from the service's; `offset` seconds (service minus local) when known.
    case clockSkew(offset: Double?, message: String)
    /// No connection, DNS, TLS, or a dropped connection.
    case network(HTTPError)
    /// No response in time.
    case timeout(HTTPError)
    /// No usable credentials.
    case credentials(CredentialError)
    /// Anything else the service answered.
    case unexpected(status: Int, type: String, message: String)

    /// What a sender does about it: the one answer the uploader and its tests share.
    public enum Disposition: Sendable, Equatable {
        /// Send the same request again later (not before `after` seconds when the service said).
        case retry(after: Double?)
        /// The quota is exceeded (shared by every device of the account): send more slowly, and
        /// the same request again later (not before `after` seconds when the service said).
        case slowDown(after: Double?)
        /// Some position in the batch is invalid: split the batch to find it.
        case bisect
        /// Nothing will go until the operator acts (permissions, the tracker's name, credentials,
        /// the clock): say so once, retry slowly, keep the queue.
        case misconfigured
    }

    public var disposition: Disposition {
        switch self {
        case let .throttled(retryAfter, _): return .slowDown(after: retryAfter)
        case .internalError, .network, .timeout, .conflict, .unexpected: return .retry(after: nil)
        case .validation: return .bisect
        case .accessDenied, .resourceNotFound, .invalidCredentials, .signatureMismatch, .clockSkew, .credentials, .expiredCredentials:
            return .misconfigured
        }
    }

    public var description: String {
        switch self {
        case let .throttled(after, message):
            return "throttled by the tracker (\(message))" + (after.map { "; retry after \(Int($0)) s" } ?? "")
        case let .validation(message):
            return "the tracker rejected the request as invalid: \(message)"
        case let .accessDenied(operation, tracker, message):
            return "access denied (\(message)): the IAM policy must allow geo:\(operation) on arn:aws:geo:<region>:<account>:tracker/\(tracker)"
        case let .resourceNotFound(tracker, message):
            return "tracker '\(tracker)' not found (\(message)): check the tracker name and the region"
        case let .conflict(message):
            return "conflict: \(message)"
        case let .internalError(status, message):
            return "the tracker service failed (HTTP \(status): \(message)); will retry"
        case let .expiredCredentials(message):
            return "AWS credentials expired (\(message)); refreshing"
        case let .invalidCredentials(message):
            return "AWS credentials not valid (\(message)): check the access key id and session token"
        case let .signatureMismatch(message):
            return "request signature rejected (\(message)): the secret access key does not belong to the access key id"
        case let .clockSkew(offset, message):
            let off = offset.map { "clock is \(Self.span(abs($0))) off" } ?? "clock is off"
            return "\(off); the request signature is only valid for 5 min — is NTP running? (\(message))"
        case let .network(error), let .timeout(error):
            return error.description
        case let .credentials(error):
            return error.description
        case let .unexpected(status, type, message):
            return "unexpected answer from the tracker: HTTP \(status) \(type) \(message)"
        }
    }

    static func span(_ seconds: Double) -> String {
        seconds >= 120 ? "\(Int((seconds / 60).rounded())) min" : "\(Int(seconds.rounded())) s"
    }

    /// Classifies an error response.
    static func classify(_ response: HTTPResponse, operation: String, tracker: String, localTime: FixTime) -> TrackerError {
        let header = response.header("x-amzn-ErrorType") ?? ""
        var type = String(header.split(separator: ":").first ?? "")
        if type.isEmpty, let body = TrackerWire.decode(TypedError.self, from: response.body), let t = body.__type {
            type = String(t.split(separator: "#").last ?? Substring(t))
        }
        let message = TrackerWire.decode(TrackerWire.ServiceError.self, from: response.body)?.text ?? response.bodyText
        let lower = message.lowercased()
        switch (response.status, type) {
        case (429, _), (_, "ThrottlingException"):
            return .throttled(retryAfter: response.header("Retry-After").flatMap(Double.init), message: message)
        case (_, "ExpiredTokenException"), (_, "ExpiredToken"):
            return .expiredCredentials(message: message)
        case (403, _) where lower.contains("security token") && lower.contains("expired"):
            return .expiredCredentials(message: message)
        case (_, "UnrecognizedClientException"), (_, "InvalidClientTokenId"):
            return .invalidCredentials(message: message)
        case (403, _) where lower.contains("signature expired") || lower.contains("signature not yet current"):
            var offset: Double?
            if let date = response.header("Date").flatMap(Self.httpDate) {
                offset = localTime.seconds(to: date)
            }
            return .clockSkew(offset: offset, message: message)
        case (_, "InvalidSignatureException"), (_, "SignatureDoesNotMatch"):
            return .signatureMismatch(message: message)
        case (_, "AccessDeniedException"), (403, _):
            return .accessDenied(operation: operation, tracker: tracker, message: message)
        case (_, "ResourceNotFoundException"), (404, _):
            return .resourceNotFound(tracker: tracker, message: message)
        case (_, "ValidationException"), (400, _):
            return .validation(message: message)
        case (_, "ConflictException"), (409, _):
            return .conflict(message: message)
        case (500..., _), (_, "InternalServerException"):
            return .internalError(status: response.status, message: message)
        default:
            return .unexpected(status: response.status, type: type, message: message)
        }
    }

    struct TypedError: Decodable { var __type: String? }

    /// Parses an IMF-fixdate (`Sun, 06 Nov 1994 08:49:37 GMT`).
    static func httpDate(_ text: String) -> FixTime? {
        let parts = text.split(separator: " ")
        guard parts.count == 6 else { return nil }
        let months = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"]
        guard let month = months.firstIndex(of: String(parts[2])) else { return nil }
        let m = month + 1
        return FixTime(iso8601: "\(parts[3])-\(m < 10 ? "0" : "")\(m)-\(parts[1].count == 1 ? "0" : "")\(parts[1])T\(parts[4])Z")
    }
}
