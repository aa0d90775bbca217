/// Process exit statuses, from BSD `sysexits.h` where one fits, so service managers and scripts can
/// tell a configuration mistake from a crash.
public enum ExitCode: Int32, Sendable, CaseIterable {
    case success = 0
    /// EX_USAGE: the command line was wrong.
    case usage = 64
    /// EX_UNAVAILABLE: a service gpstrackd needs is not available.
    case unavailable = 69
    /// EX_CANTCREAT: the state directory or a file in it cannot be created.
    case cannotCreate = 73
    /// EX_IOERR: an input/output error.
    case ioError = 74
    /// EX_TEMPFAIL: another gpstrackd runs on the same state directory; trying later may work.
    case temporaryFailure = 75
    /// EX_CONFIG: the configuration is invalid.
    case config = 78
}

extension ExitCode {
    /// What the status means, for the manual.
    var meaning: String {
        switch self {
        case .success: return "Success, or stopped by SIGINT/SIGTERM."
        case .usage: return "The command line was wrong (EX_USAGE)."
        case .unavailable: return "The tracker cannot be reached or refuses, or OpenSSL 3 (libssl3), which it needs, is missing; for status, the daemon is not running (EX_UNAVAILABLE)."
        case .cannotCreate: return "The state directory or its spool cannot be used: not writable, or from a newer gpstrackd (EX_CANTCREAT)."
        case .ioError: return "An input/output error (EX_IOERR)."
        case .temporaryFailure: return "Another gpstrackd runs on the same state directory (EX_TEMPFAIL)."
        case .config: return "The configuration is invalid: no credentials, no region, a bad value (EX_CONFIG)."
        }
    }
}
