/// Finds AWS credentials; the first source that yields wins:
/// 1. explicit keys from the configuration;
/// 2. the environment: `AWS_ACCESS_KEY_ID`, `AWS_SECRET_ACCESS_KEY`, `AWS_SESSION_TOKEN`;
/// 3. a systemd credential: `$CREDENTIALS_DIRECTORY/aws-credentials` (shared-credentials format);
/// 4. the shared credentials file: `AWS_SHARED_CREDENTIALS_FILE` or `~/.aws/credentials`, profile
///    from the `profile` key, else `AWS_PROFILE`, else `default`;
/// 5. a Cognito identity pool with guest access (`identity-pool-id`).
public struct CredentialChain: Sendable {
    public struct Configuration: Sendable {
        public var accessKeyID: String?
        public var secretAccessKey: String?
        public var sessionToken: String?
        public var profile: String?
        public var identityPoolID: String?
        public var cognitoEndpoint: ServiceEndpoint?
        /// Where the Cognito IdentityId is kept.
        public var stateDirectory: String?
        /// Refresh expiring credentials this long before they expire (seconds).
        public var refreshAhead: Double = 300
        public var environment: [String: String]

        public init(environment: [String: String]) {
            self.environment = environment
        }
    }

    /// The chosen source.
    public struct Resolution: Sendable {
        public var provider: any CredentialProvider
        /// Where the credentials come from, without secrets.
        public var source: String
        /// Problems worth a warning (a credentials file others can read).
        public var warnings: [String]
    }

    public static func resolve(_ c: Configuration, transport: any HTTPTransport) throws(CredentialError) -> Resolution {
        var tried: [String] = []
        var warnings: [String] = []
        // 1. Explicit keys.
        if c.accessKeyID != nil || c.secretAccessKey != nil {
            guard let key = c.accessKeyID, !key.isEmpty else { throw .incomplete(source: "the configuration", missing: "access-key-id") }
            guard let secret = c.secretAccessKey, !secret.isEmpty else {
                throw .incomplete(source: "the configuration", missing: "secret-access-key")
            }
            let credentials = Credentials(accessKeyID: key, secretAccessKey: secret, sessionToken: c.sessionToken, source: "the configuration")
            return Resolution(provider: StaticCredentialProvider(credentials), source: credentials.source, warnings: [])
        }
        tried.append("configuration keys")
        // 2. Environment.
        let env = c.environment
        if env["AWS_ACCESS_KEY_ID"] != nil || env["AWS_SECRET_ACCESS_KEY"] != nil {
            guard let key = env["AWS_ACCESS_KEY_ID"], !key.isEmpty else { throw .incomplete(source: "the environment", missing: "AWS_ACCESS_KEY_ID") }
            guard let secret = env["AWS_SECRET_ACCESS_KEY"], !secret.isEmpty else {
                throw .incomplete(source: "the environment", missing: "AWS_SECRET_ACCESS_KEY")
            }
            let token = env["AWS_SESSION_TOKEN"].flatMap { $0.isEmpty ? nil : $0 }
            let credentials = Credentials(accessKeyID: key, secretAccessKey: secret, sessionToken: token, source: "the environment")
            return Resolution(provider: StaticCredentialProvider(credentials), source: credentials.source, warnings: [])
        }
        tried.append("environment AWS_ACCESS_KEY_ID")
        let profile = c.profile ?? env["AWS_PROFILE"] ?? "default"
        // 3. systemd credential, 4. shared credentials file.
        var files: [(path: String, label: String)] = []
        if let directory = env["CREDENTIALS_DIRECTORY"], !directory.isEmpty {
            files.append((directory + "/aws-credentials", "systemd credential aws-credentials"))
        }
        tried.append("systemd credential aws-credentials")
        if let path = env["AWS_SHARED_CREDENTIALS_FILE"], !path.isEmpty {
            files.append((path, path))
        } else if let home = env["HOME"], !home.isEmpty {
            files.append((home + "/.aws/credentials", home + "/.aws/credentials"))
        }
        tried.append("shared credentials file (profile \(profile))")
        for file in files {
            guard let parsed = try SharedCredentialsFile.load(file.path) else { continue }
            if parsed.isExposed {
                warnings.append("\(file.path) holds AWS secrets and is readable by group or others; chmod 600 it")
            }
            if parsed.profiles[profile] == nil, c.profile == nil, env["AWS_PROFILE"] == nil { continue }
            let credentials = try parsed.credentials(profile: profile, source: file.label)
            return Resolution(provider: StaticCredentialProvider(credentials), source: credentials.source, warnings: warnings)
        }
        // 5. Cognito guest access.
        if let pool = c.identityPoolID, !pool.isEmpty {
            let cognito = try CognitoGuestCredentials(
                identityPoolID: pool, endpoint: c.cognitoEndpoint,
                identityFile: c.stateDirectory.map { $0 + "/cognito-identity-id" }, transport: transport)
            let provider = RefreshingCredentials(refreshAhead: c.refreshAhead) { () async throws(CredentialError) -> Credentials in
                try await cognito.fetch()
            }
            return Resolution(provider: provider, source: "Cognito identity pool \(pool) (guest)", warnings: warnings)
        }
        tried.append("identity-pool-id")
        throw .notFound(tried: tried)
    }
}
