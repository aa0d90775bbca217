import TrackingCore

/// AWS credentials: an access key, its secret, and for temporary credentials a session token
/// and an expiry. `description` never shows the secret or the token.
public struct Credentials: Sendable, Equatable, CustomStringConvertible {
    public var accessKeyID: String
    public var secretAccessKey: String
    public var sessionToken: String?
    public var expiration: FixTime?
    /// Where they came from ("environment", "profile default in ~/.aws/credentials", ...).
    public var source: String

    public init(accessKeyID: String, secretAccessKey: String, sessionToken: String? = nil, expiration: FixTime? = nil, source: String) {
        self.accessKeyID = accessKeyID
        self.secretAccessKey = secretAccessKey
        self.sessionToken = sessionToken
        self.expiration = expiration
        self.source = source
    }

    public var description: String {
        let key = accessKeyID.count > 8 ? String(accessKeyID.prefix(4)) + "…" + String(accessKeyID.suffix(4)) : "…"
        return "credentials \(key) from \(source)" + (expiration.map { ", expiring \($0)" } ?? "")
    }
}
