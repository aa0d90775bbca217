import COpenSSL

/// OpenSSL 3, opened when the first tracker client needs it rather than linked: a daemon on the
/// file sink never maps libssl and libcrypto (about 1.7 MB of resident memory less).
public enum OpenSSL {
    /// Why OpenSSL cannot be used, and what to install.
    public struct Unavailable: Error, CustomStringConvertible, Equatable {
        public let reason: String
        public var description: String {
            "cannot load OpenSSL 3, which TLS and request signing need (\(reason)): install Debian's libssl3 (apt-get install libssl3)"
        }
    }

    /// The libraries opened, once for the process (the first use, thread-safe as every global is).
    private static let opened: Result<Void, Unavailable> = {
        var reason = [CChar](repeating: 0, count: 512)
        return gpstrackd_openssl_load(&reason, reason.count) == 1 ? .success(()) : .failure(Unavailable(reason: text(reason)))
    }()

    /// Opens the libraries, once for the process; later calls give the first answer.
    public static func load() throws(Unavailable) {
        try opened.get()
    }

    /// The text a C call wrote into `buffer`, up to its terminating zero.
    static func text(_ buffer: [CChar]) -> String {
        String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    /// For calls that only a tracker client makes, after its owner loaded OpenSSL (or failed to
    /// start with the reason).
    static func required() {
        do throws(Unavailable) {
            try load()
        } catch {
            preconditionFailure(error.description)
        }
    }
}
