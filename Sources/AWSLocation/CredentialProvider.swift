/// A source of AWS credentials.
public protocol CredentialProvider: Sendable {
    /// Credentials valid for at least the next request.
    func credentials() async throws(CredentialError) -> Credentials
    /// The service rejected the current credentials as expired: the next call fetches fresh ones.
    func invalidate() async
}

/// Credentials that never change (keys from configuration, the environment or a file).
public struct StaticCredentialProvider: CredentialProvider {
    public let value: Credentials
    public init(_ value: Credentials) { self.value = value }
    public func credentials() async throws(CredentialError) -> Credentials { value }
    public func invalidate() async {}
}
