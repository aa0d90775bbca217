import Glibc

/// A system call's error, captured at the call (swift-system's `Errno`): read later, after another
/// call or an `await`, `errno` may already say something else.
public struct Errno: Error, Sendable, Equatable, CustomStringConvertible {
    public let code: Int32

    public init(_ code: Int32) { self.code = code }

    /// The calling thread's `errno`, now.
    public static var current: Errno { Errno(errno) }

    public static let interrupted = Errno(EINTR)
    public static let noSuchFile = Errno(ENOENT)
    public static let noSpace = Errno(ENOSPC)

    public var description: String { String(cString: strerror(code)) }
}
