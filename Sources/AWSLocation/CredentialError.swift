/// Why no usable AWS credentials could be had. Never contains a secret.
public enum CredentialError: Error, Sendable, Equatable, CustomStringConvertible {
    /// No source in the chain yielded credentials.
    case notFound(tried: [String])
    /// A credentials file could not be read or parsed.
    case unreadable(path: String, reason: String)
    /// The profile is not in the file.
    case profileNotFound(profile: String, path: String)
    /// A source is configured incompletely (e.g. an access key without its secret).
    case incomplete(source: String, missing: String)
    /// Cognito identity pool guest access failed.
    case cognito(message: String)

    public var description: String {
        switch self {
        case let .notFound(tried):
            return "no AWS credentials found; tried: \(tried.joined(separator: ", ")). Set one of them, or an identity-pool-id for Cognito guest access"
        case let .unreadable(path, reason):
            return "cannot read AWS credentials from \(path): \(reason)"
        case let .profileNotFound(profile, path):
            return "profile '\(profile)' is not in \(path); set profile (or AWS_PROFILE) to one that is"
        case let .incomplete(source, missing):
            return "AWS credentials in \(source) lack \(missing)"
        case let .cognito(message):
            return "Cognito guest credentials failed: \(message); check identity-pool-id, that the pool allows unauthenticated identities, and its role's policy"
        }
    }
}
