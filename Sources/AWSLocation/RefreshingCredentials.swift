import TrackingCore

/// Expiring credentials kept fresh: refreshed `refreshAhead` before they expire, with one refresh
/// in flight at a time (every caller during a refresh awaits the same one).
public actor RefreshingCredentials: CredentialProvider {
    public typealias Fetch = @Sendable () async throws(CredentialError) -> Credentials

    private let fetch: Fetch
    private let refreshAhead: Double
    private let now: @Sendable () -> FixTime
    private var cached: Credentials?
    private var refreshing: Task<Result<Credentials, CredentialError>, Never>?
    /// Refreshes performed, for status and tests.
    public private(set) var refreshCount = 0

    public init(refreshAhead: Double = 300, now: @escaping @Sendable () -> FixTime = SystemClock.now, fetch: @escaping Fetch) {
        self.fetch = fetch
        self.refreshAhead = refreshAhead
        self.now = now
    }

    public func credentials() async throws(CredentialError) -> Credentials {
        if let cached, !needsRefresh(cached) { return cached }
        return try await refresh().get()
    }

    public func invalidate() async {
        cached = nil
    }

    /// When the current credentials expire.
    public var expiration: FixTime? { cached?.expiration }

    private func needsRefresh(_ credentials: Credentials) -> Bool {
        guard let expiration = credentials.expiration else { return false }
        return now().seconds(to: expiration) <= refreshAhead
    }

    private func refresh() async -> Result<Credentials, CredentialError> {
        if let refreshing { return await refreshing.value }
        let fetch = self.fetch
        let task = Task { () async -> Result<Credentials, CredentialError> in
            do throws(CredentialError) {
                return .success(try await fetch())
            } catch {
                return .failure(error)
            }
        }
        refreshing = task
        let result = await task.value
        refreshing = nil
        if case let .success(credentials) = result {
            cached = credentials
            refreshCount += 1
        }
        return result
    }
}
