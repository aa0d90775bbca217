import Glibc

/// Writes to a socket whose peer has gone raise SIGPIPE, which ends the process unless the
/// process ignores it. Only the program decides that (`GPSTrackd.main` does); a library must not
/// change a process-wide disposition, yet calls into C code that writes with write(2) (libssl,
/// libgps) must fail with EPIPE rather than end whatever process embeds them: a test runner, a
/// benchmark. So those calls run with SIGPIPE blocked on their own thread, and a SIGPIPE they
/// raised is taken off the thread before the mask is restored (the technique of libpq).
public enum BrokenPipe {
    /// Runs `body` so that a write to a closed peer inside it fails with EPIPE and raises nothing.
    /// `errno` as `body` left it is kept for the caller.
    public static func withoutSignal<T, E: Error>(_ body: () throws(E) -> T) throws(E) -> T {
        var pipeOnly = sigset_t()
        sigemptyset(&pipeOnly)
        sigaddset(&pipeOnly, SIGPIPE)
        var previous = sigset_t()
        pthread_sigmask(SIG_BLOCK, &pipeOnly, &previous)
        var pending = sigset_t()
        sigpending(&pending)
        // One already pending (raised before, or sent to the process) is not ours to take.
        let alreadyPending = sigismember(&pending, SIGPIPE) == 1
        defer {
            let saved = errno
            if !alreadyPending {
                sigpending(&pending)
                if sigismember(&pending, SIGPIPE) == 1 {
                    var now = timespec(tv_sec: 0, tv_nsec: 0)
                    _ = sigtimedwait(&pipeOnly, nil, &now)
                }
            }
            if sigismember(&previous, SIGPIPE) != 1 { pthread_sigmask(SIG_SETMASK, &previous, nil) }
            errno = saved
        }
        return try body()
    }
}
