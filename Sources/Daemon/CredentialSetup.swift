import AWSLocation

/// Resolves the credential chain for the daemon and `history` alike, logging its warnings.
enum CredentialSetup {
    static func resolve(
        accessKeyID: String? = nil, secretAccessKey: String? = nil, profile: String?, identityPoolID: String?,
        cognitoEndpoint: ServiceEndpoint?, stateDirectory: String?, environment: [String: String],
        transport: any HTTPTransport, logger: Logger
    ) throws(CredentialError) -> CredentialChain.Resolution {
        var chain = CredentialChain.Configuration(environment: environment)
        chain.accessKeyID = accessKeyID
        chain.secretAccessKey = secretAccessKey
        chain.profile = profile
        chain.identityPoolID = identityPoolID
        chain.cognitoEndpoint = cognitoEndpoint
        chain.stateDirectory = stateDirectory
        let resolution = try CredentialChain.resolve(chain, transport: transport)
        for warning in resolution.warnings { logger.warning(warning) }
        return resolution
    }
}
