import AWSLocation
import Spool
import TrackingCore
import Uploader

/// The tracker sink's parts, built from the configuration: credentials, the signed client, the
/// uploader, and the service that knows the tracker's filtering (and tells the filter and the
/// uploader when it learns it).
struct TrackerSink: Sendable {
    let uploader: Uploader
    let filtering: TrackerFilteringService
    let credentials: RefreshingCredentials?
    let credentialSource: String
    let memory: TrackerMemory

    /// Resolves the credentials (a configuration error when none are usable) and builds the parts.
    /// `memory` is what `tracker.json` holds; `filterFollows` receives each tracker mode learned.
    static func make(_ c: DaemonConfiguration, memory: TrackerMemory, environment: [String: String], spool: Spool, logger: Logger,
                     events: @escaping @Sendable (UploaderEvent) -> Void,
                     filterFollows: @escaping @Sendable (TrackerFiltering) -> Void) throws -> TrackerSink {
        let transport = SocketTransport(configuration: transportConfiguration(c))
        let resolution = try CredentialSetup.resolve(
            accessKeyID: c.accessKeyID, secretAccessKey: c.secretAccessKey, profile: c.profile, identityPoolID: c.identityPoolID,
            cognitoEndpoint: c.endpoint, stateDirectory: c.stateDirectory, environment: environment, transport: transport, logger: logger)
        logger.info("AWS credentials from \(resolution.source)")
        let client = TrackerClient(region: c.region ?? "", endpoint: c.endpoint, credentials: resolution.provider, transport: transport)
        let initial = TrackerFilteringService.initial(configured: c.trackerFiltering, memory: memory)
        var configuration = Uploader.Configuration(tracker: c.tracker ?? "", deviceID: c.deviceID)
        configuration.take(c)
        configuration.trackerFiltering = initial.filtering
        // Queued positions are withheld only for a mode known, never on a guess.
        configuration.trackerFilteringKnown = initial.source != .unanswered
        let uploader = Uploader(configuration: configuration, spool: spool, client: client, events: events, lastStored: memory.lastStoredLocation,
                                spentToday: Self.spentToday(in: c.stateDirectory))
        let filtering = TrackerFilteringService(
            configured: c.trackerFiltering, memory: memory, tracker: c.tracker ?? "", directory: c.stateDirectory, logger: logger,
            client: client,
            apply: { [uploader] mode in
                filterFollows(mode)
                var settings = uploader.configuration
                settings.trackerFiltering = mode
                settings.trackerFilteringKnown = true
                uploader.update(settings)
            },
            lastStored: { [uploader] in uploader.statistics.lastStored })
        return TrackerSink(uploader: uploader, filtering: filtering, credentials: resolution.provider as? RefreshingCredentials,
                           credentialSource: resolution.source, memory: memory)
    }

    /// The transport's settings from the configuration: keepalives on idle connections after
    /// `connection-keepalive` seconds of silence, none when it is 0; the TLS sessions kept in the
    /// state directory, so that the first connection after a restart resumes.
    static func transportConfiguration(_ c: DaemonConfiguration) -> SocketTransport.Configuration {
        var settings = SocketTransport.Configuration()
        settings.keepAlive = c.connectionKeepalive > 0 ? IdleKeepAlive(every: .milliseconds(Int64(c.connectionKeepalive * 1000))) : nil
        settings.sessionFile = c.stateDirectory + "/tls-sessions.json"
        return settings
    }

    /// The day's bytes on the wire as the last run's status.json left them (written every few
    /// seconds), so that a restart does not give `data-budget` back.
    static func spentToday(in directory: String) -> (bytes: Int, asOf: FixTime)? {
        guard let status = DaemonStatus.load(from: directory), let bytes = status.upload.bytesToday,
              let updated = FixTime(iso8601: status.updated) else { return nil }
        return (bytes, updated)
    }
}
