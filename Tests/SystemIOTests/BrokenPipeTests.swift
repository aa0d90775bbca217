import Glibc
import Synchronization
import Testing
import SystemIO

/// SIGPIPEs delivered to this process while a test's handler is installed.
private let raisedPipes = Atomic<Int>(0)

@Suite(.serialized) struct BrokenPipeTests {
    /// A connected pair of sockets whose far end is already closed: writing to `near` is a broken pipe.
    private func brokenPair() -> Int32 {
        var pair: [Int32] = [0, 0]
        #expect(socketpair(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0, &pair) == 0)
        close(pair[1])
        return pair[0]
    }

    @Test func aWriteToAClosedPeerFailsWithEPIPEAndRaisesNoSignal() {
        var counting = sigaction()
        counting.__sigaction_handler.sa_handler = { _ in raisedPipes.add(1, ordering: .relaxed) }
        var previous = sigaction()
        sigaction(SIGPIPE, &counting, &previous)
        defer { sigaction(SIGPIPE, &previous, nil) }
        let byte: [UInt8] = [1]

        // Unshielded, the same write raises the signal (the process would end under SIG_DFL).
        let bare = brokenPair()
        defer { close(bare) }
        let before = raisedPipes.load(ordering: .relaxed)
        #expect(write(bare, byte, 1) == -1)
        #expect(raisedPipes.load(ordering: .relaxed) == before + 1)

        let shielded = brokenPair()
        defer { close(shielded) }
        let (result, code) = BrokenPipe.withoutSignal { (write(shielded, byte, 1), errno) }
        #expect(result == -1)
        #expect(code == EPIPE)
        #expect(errno == EPIPE, "errno as the call left it")
        #expect(raisedPipes.load(ordering: .relaxed) == before + 1, "the shielded write's SIGPIPE was taken, not delivered")

        // The thread's mask is as it was: SIGPIPE is not left blocked.
        var mask = sigset_t()
        pthread_sigmask(SIG_BLOCK, nil, &mask)
        #expect(sigismember(&mask, SIGPIPE) == 0)
    }
}
