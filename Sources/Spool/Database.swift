import CSQLite

/// One SQLite connection. Owns its handle and closes it in `deinit`; every call that can fail
/// funnels through `check`, which turns result codes into `SpoolError` with the statement.
/// Not thread-safe: the spool uses it from its own serial queue only.
final class Database {
    let path: String
    private let handle: OpaquePointer
    private var statements: [String: Statement] = [:]

    init(path: String) throws(SpoolError) {
        self.path = path
        var db: OpaquePointer?
        let flags = SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_NOMUTEX
        let code = sqlite3_open_v2(path, &db, flags, nil)
        guard code == SQLITE_OK, let db else {
            let message = db.map { String(cString: sqlite3_errmsg($0)) } ?? "out of memory"
            if let db { sqlite3_close_v2(db) }
            throw .sqlite(code: code, message: message, sql: "open \(path)")
        }
        handle = db
        sqlite3_extended_result_codes(db, 1)
        sqlite3_busy_timeout(db, 5000)
    }

    deinit {
        statements.removeAll()
        sqlite3_close_v2(handle)
    }

    /// Runs one or more statements that return no rows.
    func execute(_ sql: String) throws(SpoolError) {
        var error: UnsafeMutablePointer<CChar>?
        let code = sqlite3_exec(handle, sql, nil, nil, &error)
        if code != SQLITE_OK {
            let message = error.map { String(cString: $0) } ?? lastMessage
            sqlite3_free(error)
            throw .sqlite(code: code, message: message, sql: sql)
        }
    }

    /// Runs one statement that returns no rows, prepared once and kept (for the statements every
    /// operation runs: BEGIN, COMMIT, the synchronous switch).
    func run(_ sql: String) throws(SpoolError) {
        try statement(sql).run()
    }

    /// A prepared statement, cached by its text.
    func statement(_ sql: String) throws(SpoolError) -> Statement {
        if let cached = statements[sql] {
            cached.reset()
            return cached
        }
        var raw: OpaquePointer?
        let code = sqlite3_prepare_v3(handle, sql, -1, UInt32(SQLITE_PREPARE_PERSISTENT), &raw, nil)
        guard code == SQLITE_OK, let raw else { throw .sqlite(code: code, message: lastMessage, sql: sql) }
        let statement = Statement(raw, sql: sql, database: self)
        statements[sql] = statement
        return statement
    }

    /// The integer in the first column of the first row of `sql`.
    func integer(_ sql: String) throws(SpoolError) -> Int64? {
        let statement = try self.statement(sql)
        defer { statement.reset() }
        guard try statement.step() else { return nil }
        return statement.isNull(0) ? nil : statement.int64(0)
    }

    /// Runs `body` in a transaction: committed when it returns, rolled back when it throws.
    func transaction<T>(_ body: () throws(SpoolError) -> T) throws(SpoolError) -> T {
        try run("BEGIN IMMEDIATE")
        do {
            let result = try body()
            try run("COMMIT")
            return result
        } catch {
            try? run("ROLLBACK")
            throw error
        }
    }

    var changes: Int { Int(sqlite3_changes(handle)) }

    /// Whether SQLite opened the file read-only (it does so silently when it cannot write it).
    var isReadOnly: Bool { sqlite3_db_readonly(handle, "main") == 1 }

    /// Closing will leave the write-ahead log as it is (no checkpoint into the file): for a
    /// damaged database that is kept for inspection.
    func keepLogOnClose() {
        _ = gpstrackd_sqlite_keep_log_on_close(handle)
    }

    var lastMessage: String { String(cString: sqlite3_errmsg(handle)) }
}

/// A prepared statement with typed binders and column readers.
final class Statement {
    fileprivate let raw: OpaquePointer
    let sql: String
    private unowned let database: Database

    init(_ raw: OpaquePointer, sql: String, database: Database) {
        self.raw = raw
        self.sql = sql
        self.database = database
    }

    deinit { sqlite3_finalize(raw) }

    func reset() {
        sqlite3_reset(raw)
        sqlite3_clear_bindings(raw)
    }

    func bind(_ index: Int32, _ value: Int64) {
        sqlite3_bind_int64(raw, index, value)
    }

    func bind(_ index: Int32, _ value: Double?) {
        if let value { sqlite3_bind_double(raw, index, value) } else { sqlite3_bind_null(raw, index) }
    }

    func bind(_ index: Int32, _ value: String?) {
        if let value { gpstrackd_sqlite_bind_text(raw, index, value) } else { sqlite3_bind_null(raw, index) }
    }

    /// Binds column `column` of `other`'s current row, whatever its type, as parameter `index`.
    func bind(_ index: Int32, column: Int32, of other: Statement) {
        sqlite3_bind_value(raw, index, sqlite3_column_value(other.raw, column))
    }

    /// Advances to the next row; false when done.
    func step() throws(SpoolError) -> Bool {
        let code = sqlite3_step(raw)
        switch code {
        case SQLITE_ROW: return true
        case SQLITE_DONE: return false
        default:
            let message = database.lastMessage
            sqlite3_reset(raw)
            throw .sqlite(code: code, message: message, sql: sql)
        }
    }

    /// Runs a statement that returns no rows.
    func run() throws(SpoolError) {
        defer { sqlite3_reset(raw) }
        while try step() {}
    }

    func isNull(_ column: Int32) -> Bool { sqlite3_column_type(raw, column) == SQLITE_NULL }
    func int64(_ column: Int32) -> Int64 { sqlite3_column_int64(raw, column) }
    func double(_ column: Int32) -> Double? { isNull(column) ? nil : sqlite3_column_double(raw, column) }
    func string(_ column: Int32) -> String? {
        guard let text = sqlite3_column_text(raw, column) else { return nil }
        return String(cString: text)
    }
}
