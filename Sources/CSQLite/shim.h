// SQLite for the spool. SQLITE_TRANSIENT is a macro casting -1 to a function pointer, which Swift
// cannot import; the binders below wrap it.
#ifndef GPSTRACKD_CSQLITE_SHIM_H
#define GPSTRACKD_CSQLITE_SHIM_H

#include <sqlite3.h>

static inline int gpstrackd_sqlite_bind_text(sqlite3_stmt *statement, int index, const char *text) {
    return sqlite3_bind_text(statement, index, text, -1, SQLITE_TRANSIENT);
}

// sqlite3_db_config is variadic, which Swift cannot call.
static inline int gpstrackd_sqlite_keep_log_on_close(sqlite3 *db) {
    return sqlite3_db_config(db, SQLITE_DBCONFIG_NO_CKPT_ON_CLOSE, 1, (int *)0);
}

#endif
