import Glibc
import SystemIO
import TrackingCore

/// Guest (unauthenticated) credentials from an Amazon Cognito identity pool: `GetId` once, then
/// `GetCredentialsForIdentity` whenever the temporary credentials near expiry.
///
/// The IdentityId is kept in the state directory, so a device keeps one identity across
/// restarts (and the pool does not fill up with abandoned identities).
public struct CognitoGuestCredentials: Sendable {
    public let identityPoolID: String
    public let region: String
    public let endpoint: ServiceEndpoint
    public let identityFile: String?
    private let transport: any HTTPTransport

    /// `identityPoolID` is `<region>:<uuid>`; the region comes from it.
    public init(identityPoolID: String, endpoint: ServiceEndpoint? = nil, identityFile: String?, transport: any HTTPTransport) throws(CredentialError) {
        guard let colon = identityPoolID.firstIndex(of: ":"), colon != identityPoolID.startIndex else {
            throw .cognito(message: "identity-pool-id '\(identityPoolID)' is not <region>:<id>, e.g. eu-west-1:0000-…")
        }
        self.identityPoolID = identityPoolID
        region = String(identityPoolID[..<colon])
        self.endpoint = endpoint ?? .cognitoIdentity(region: region)
        self.identityFile = identityFile
        self.transport = transport
    }

    /// Fetches fresh credentials (for `RefreshingCredentials`).
    public func fetch() async throws(CredentialError) -> Credentials {
        let identity = try await identityID()
        do {
            return try await credentials(for: identity)
        } catch let error where error.description.contains("ResourceNotFoundException") {
            // The stored identity was deleted from the pool: start a new one.
            removeStoredIdentity()
            return try await credentials(for: try await identityID())
        }
    }

    private struct GetIdRequest: Encodable { var IdentityPoolId: String }
    private struct GetIdResponse: Decodable { var IdentityId: String }
    private struct CredentialsRequest: Encodable { var IdentityId: String }
    private struct CredentialsResponse: Decodable {
        struct Body: Decodable {
            var AccessKeyId: String
            var SecretKey: String
            var SessionToken: String
            var Expiration: Double
        }
        var Credentials: Body
    }
    private struct ErrorResponse: Decodable {
        var __type: String?
        var message: String?
    }

    func identityID() async throws(CredentialError) -> String {
        if let stored = storedIdentity() { return stored }
        let response: GetIdResponse = try await call("GetId", GetIdRequest(IdentityPoolId: identityPoolID))
        store(response.IdentityId)
        return response.IdentityId
    }

    private func credentials(for identity: String) async throws(CredentialError) -> Credentials {
        let response: CredentialsResponse = try await call("GetCredentialsForIdentity", CredentialsRequest(IdentityId: identity))
        let body = response.Credentials
        return Credentials(
            accessKeyID: body.AccessKeyId, secretAccessKey: body.SecretKey, sessionToken: body.SessionToken,
            expiration: FixTime(nanosecondsSince1970: Int64(body.Expiration * 1e9)),
            source: "Cognito identity pool \(identityPoolID) (guest)")
    }

    private func call<Body: Encodable, Answer: Decodable>(_ action: String, _ body: Body) async throws(CredentialError) -> Answer {
        let request = endpoint.request(
            method: "POST", path: "/",
            headers: [("Content-Type", "application/x-amz-json-1.1"), ("X-Amz-Target", "AWSCognitoIdentityService.\(action)")],
            body: TrackerWire.encode(body))
        let response: HTTPResponse
        do {
            response = try await transport.send(request)
        } catch {
            throw .cognito(message: "\(action): \(error)")
        }
        guard response.status == 200 else {
            let error = TrackerWire.decode(ErrorResponse.self, from: response.body)
            let type = error?.__type.map { String($0.split(separator: "#").last ?? Substring($0)) } ?? "HTTP \(response.status)"
            throw .cognito(message: "\(action): \(type): \(error?.message ?? response.bodyText)")
        }
        guard let answer = TrackerWire.decode(Answer.self, from: response.body) else {
            throw .cognito(message: "\(action): unexpected answer \(response.bodyText.prefix(200))")
        }
        return answer
    }

    // MARK: - The stored identity

    private func storedIdentity() -> String? {
        guard let identityFile, let text = try? SmallFile.read(identityFile, limit: 4096).trimmingSpaces else { return nil }
        return text.isEmpty ? nil : String(text)
    }

    private func store(_ identity: String) {
        guard let identityFile else { return }
        // Not kept is not fatal: the next start asks for a new identity.
        try? SmallFile.replace(identityFile, with: identity + "\n", mode: 0o600)
    }

    private func removeStoredIdentity() {
        if let identityFile { unlink(identityFile) }
    }
}
