import Dispatch
import Glibc
import Synchronization
import TrackingCore

/// The durable offline queue between the filter and the uploader: every kept position goes
/// here first and leaves only when the tracker has accepted it.
///
/// ## Durability contract
/// - `append` returns only after the position is committed to the write-ahead log with
///   `synchronous = FULL`, i.e. after `fsync`: a position whose `append` returned survives a crash
///   of the process and a power cut. There is no group commit: each append is its own transaction.
/// - `reject` (to the dead-letter table) is committed the same way.
/// - `ack` deletes with `synchronous = NORMAL`: after a power cut the newest acknowledgements may be
///   forgotten, so those positions are uploaded again. A position is never lost that way, only
///   possibly sent twice.
/// - A full disk: a position that finds no room even after thinning waits in memory, in order
///   (up to 10,000), and is stored as soon as there is room; `append` returns meanwhile. The
///   spool keeps a reserve file to make room with (see `SpoolStore`'s room extension).
/// - Positions are dropped only by the caps (`spool-max-rows`, `spool-max-bytes`, a full disk),
///   by thinning the oldest tenth, and every eviction is counted and reported.
/// - A damaged database (found at start or while running) is renamed to `spool.db.corrupt-<time>`,
///   never deleted, and the rows SQLite can still read are copied into the new spool.
/// - A spool file this process cannot write is refused at open (`SpoolError.readOnly`).
///
/// SQLite blocks, so all database work runs on the spool's own serial queue, never on Swift's
/// cooperative thread pool.
public final class Spool: Sendable {
    public struct Configuration: Sendable, Equatable {
        /// The state directory that holds `spool.db`.
        public var directory: String
        /// `spool-max-rows`. Default 2,000,000: about 23 days of 1 Hz positions, ~300 MB.
        public var maxRows: Int = 2_000_000
        /// `spool-max-bytes`: pages in use, off by default.
        public var maxBytes: Int64?
        public var fileName = "spool.db"
        /// Caps the database at this many pages (SQLite's `max_page_count`), so tests can run
        /// into `SQLITE_FULL` as on a full disk.
        var maxPageCount: Int?

        public init(directory: String, maxRows: Int = 2_000_000, maxBytes: Int64? = nil) {
            self.directory = directory
            self.maxRows = maxRows
            self.maxBytes = maxBytes
        }

        /// The state directory systemd gives the service (`$STATE_DIRECTORY`, first entry), else
        /// `/var/lib/gpstrackd`.
        public static func defaultDirectory(environment: [String: String]) -> String {
            if let value = environment["STATE_DIRECTORY"], let first = value.split(separator: ":").first, !first.isEmpty {
                return String(first)
            }
            return "/var/lib/gpstrackd"
        }
    }

    public let configuration: Configuration
    /// The database file.
    public let path: String
    private let queue: DispatchQueue
    private let store: StoreBox
    private let unsentCount: Atomic<Int>
    private let appendListeners = Mutex<[@Sendable () -> Void]>([])

    private init(configuration: Configuration, store: SpoolStore, queue: DispatchQueue) {
        self.configuration = configuration
        self.path = store.path
        self.queue = queue
        self.store = StoreBox(store)
        unsentCount = Atomic(store.unsent)
    }

    /// Positions queued and not handed out by `peek`, as of the last operation that finished; read
    /// without a trip to the spool's queue, so that an idle uploader need not ask SQLite.
    public var unsent: Int { unsentCount.load(ordering: .acquiring) }

    /// Opens (creating, migrating or replacing an unreadable file as needed) the spool.
    public static func open(
        _ configuration: Configuration, events: @escaping @Sendable (SpoolEvent) -> Void = { _ in }
    ) async throws(SpoolError) -> Spool {
        let queue = DispatchQueue(label: "gpstrackd.spool")
        let result: Result<SpoolStore, SpoolError> = await withCheckedContinuation { continuation in
            queue.async {
                do throws(SpoolError) {
                    continuation.resume(returning: .success(try SpoolStore(configuration: configuration, events: events)))
                } catch {
                    continuation.resume(returning: .failure(error))
                }
            }
        }
        return Spool(configuration: configuration, store: try result.get(), queue: queue)
    }

    /// `listener` hears, on the spool's queue or the appending task, each time positions were
    /// committed: a consumer (the uploader, the file sink) learns of new work from the spool
    /// itself, not from whoever appended. It must not block.
    public func onAppend(_ listener: @escaping @Sendable () -> Void) {
        appendListeners.withLock { $0.append(listener) }
    }

    private func appended() {
        for listener in appendListeners.withLock({ $0 }) { listener() }
    }

    /// Stores one position durably (see the contract above).
    public func append(_ location: Location, kept: KeepTrigger? = nil) async throws(SpoolError) {
        try await run { store throws(SpoolError) in try store.append(location, kept: kept) }
        appended()
    }

    /// Stores one position durably like `append(_:kept:)`, without waiting for it: `done` runs on
    /// the spool's queue once the position is committed (nil) or could not be (the error).
    /// Operations run in the order they are asked for, so any later call sees this position.
    /// For the daemon's reader thread, which hands kept positions over without a Swift task between.
    public func append(_ location: Location, kept: KeepTrigger?, then done: @escaping @Sendable (SpoolError?) -> Void) {
        enqueue({ store throws(SpoolError) in try store.append(location, kept: kept) }, then: { [self] result in
            if result.error == nil { appended() }
            done(result.error)
        })
    }

    /// Returns once every operation asked for before it has finished.
    public func flush() async {
        _ = try? await run { _ throws(SpoolError) in }
    }

    /// Stores many positions in one durable transaction.
    public func append(contentsOf locations: [Location]) async throws(SpoolError) {
        try await run { store throws(SpoolError) in try store.append(contentsOf: locations) }
        appended()
    }

    /// SQLite's integrity check of the database: "ok" when sound.
    public func integrityCheck() async throws(SpoolError) -> String {
        try await run { store throws(SpoolError) in try store.integrityCheck() }
    }

    /// The oldest positions not already handed out, up to `limit`; they stay in flight until
    /// acknowledged, rejected or released.
    public func peek(limit: Int) async throws(SpoolError) -> [SpooledPosition] {
        try await run { store throws(SpoolError) in try store.peek(limit: limit) }
    }

    /// The positions appended last, not already handed out, with fix times after `time`, up to
    /// `limit`, oldest first among them: the live lane, which goes ahead of a backlog. In flight
    /// as with `peek`.
    public func peekNewest(limit: Int, after time: FixTime?) async throws(SpoolError) -> [SpooledPosition] {
        try await run { store throws(SpoolError) in try store.peekNewest(limit: limit, after: time) }
    }

    /// The tracker accepted these rows: delete them.
    public func ack(_ ids: [Int64]) async throws(SpoolError) {
        if ids.isEmpty { return }
        try await run { store throws(SpoolError) in try store.ack(ids) }
    }

    /// These rows could not be sent: back into the queue.
    public func release(_ ids: [Int64]) async {
        if ids.isEmpty { return }
        _ = try? await run { store throws(SpoolError) in store.release(ids) }
    }

    /// The tracker refused these rows for good: move them to the dead-letter table.
    public func reject(_ ids: [Int64], code: String, message: String, at time: FixTime = SystemClock.now()) async throws(SpoolError) {
        try await run { store throws(SpoolError) in try store.reject(ids, code: code, message: message, at: time) }
    }

    public func deadLetters(limit: Int = 1000) async throws(SpoolError) -> [DeadLetter] {
        try await run { store throws(SpoolError) in try store.deadLetters(limit: limit) }
    }

    /// The newest queued position, if any.
    public func newest() async throws(SpoolError) -> Location? {
        try await run { store throws(SpoolError) in try store.newest() }
    }

    public func statistics() async throws(SpoolError) -> SpoolStatistics {
        try await run { store throws(SpoolError) in try store.statistics() }
    }

    /// Creates the state directory (and its parents) and checks that it can be written.
    public static func makeDirectory(_ directory: String) throws(SpoolError) {
        var built = directory.hasPrefix("/") ? "" : "."
        for part in directory.split(separator: "/") {
            built += "/" + part
            if mkdir(built, 0o750) != 0 && errno != EEXIST {
                throw .directory(path: directory, reason: String(cString: strerror(errno)))
            }
        }
        if access(directory, W_OK) != 0 {
            throw .directory(path: directory, reason: String(cString: strerror(errno)))
        }
    }

    /// Runs `body` on the spool's queue and waits for it.
    private func run<T: Sendable>(_ body: @escaping @Sendable (SpoolStore) throws(SpoolError) -> T) async throws(SpoolError) -> T {
        let result: Result<T, SpoolError> = await withCheckedContinuation { continuation in
            enqueue(body, then: { continuation.resume(returning: $0) })
        }
        return try result.get()
    }

    /// Runs `body` on the spool's queue, then `done` there with its result; `unsent` is brought up
    /// to date in between.
    private func enqueue<T>(
        _ body: @escaping @Sendable (SpoolStore) throws(SpoolError) -> T, then done: @escaping @Sendable (Result<T, SpoolError>) -> Void
    ) {
        let store = self.store
        queue.async { [self] in
            let result: Result<T, SpoolError>
            do throws(SpoolError) {
                result = .success(try store.value.recoveringFromDamage(body))
            } catch {
                result = .failure(error)
            }
            unsentCount.store(store.value.unsent, ordering: .releasing)
            done(result)
        }
    }
}

private extension Result {
    var error: Failure? {
        if case let .failure(error) = self { return error }
        return nil
    }
}

/// Carries the store across to the spool's queue, the only place it is used.
private final class StoreBox: @unchecked Sendable {
    let value: SpoolStore
    init(_ value: SpoolStore) { self.value = value }
}
