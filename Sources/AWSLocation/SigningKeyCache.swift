import Synchronization

/// The last SigV4 signing key derived, for reuse: the key depends only on the secret, the date,
/// the region and the service, so one derivation (four HMACs) serves a whole day of requests.
public final class SigningKeyCache: Sendable {
    private struct Entry {
        var secret: String
        var date: String
        var region: String
        var service: String
        var key: [UInt8]
    }

    private let entry = Mutex<Entry?>(nil)

    public init() {}

    /// The cached key for these inputs, or `derive()`'s, which replaces it.
    func key(secret: String, date: String, region: String, service: String, derive: () -> [UInt8]) -> [UInt8] {
        if let cached = entry.withLock({ e -> [UInt8]? in
            guard let e, e.date == date, e.secret == secret, e.region == region, e.service == service else { return nil }
            return e.key
        }) {
            return cached
        }
        let key = derive()
        entry.withLock { $0 = Entry(secret: secret, date: date, region: region, service: service, key: key) }
        return key
    }
}
