/// How log lines are written on stderr.
public enum LogFormat: String, Sendable, CaseIterable {
    /// `<6>message key=value`: the syslog priority prefix journald understands, no timestamp
    /// (the journal adds its own). Chosen automatically when `JOURNAL_STREAM` is set.
    case journal
    /// `2026-11-30T08:00:00.000Z info message key=value`, for terminals and plain files.
    case text
    /// One JSON object per line, for log shippers.
    case json
}
