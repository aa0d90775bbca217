/// Process exit statuses, from BSD `sysexits.h` where one fits, so service managers and scripts can
/// tell a configuration mistake from a crash.
public enum ExitCode: Int32, Sendable {
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
