import SystemIO
import TrackingCore

/// The TLS sessions to resume, kept in a file (the state directory's `tls-sessions.json`) so that
/// the first connection after a restart resumes as a reconnect does. A box whose power follows
/// the ignition restarts several times a day, and each full handshake carries the server's
/// certificate chain (a few kilobytes from the service) where a resumed one carries none.
///
/// Each server's session holds its ticket and the secret that resumes it, so the file is readable
/// by the daemon's user only (0600), as its credentials are. A session it cannot give back
/// (damaged, from another OpenSSL, expired: the server then answers with a full handshake) costs
/// one full handshake and nothing else.
struct TLSSessionFile: Sendable {
    let path: String

    /// The sessions the file holds that OpenSSL can resume (one past its lifetime it does not
    /// offer); none when the file is missing or unreadable, or OpenSSL cannot be loaded.
    func load() -> [HTTPConnection.Key: TLSSession] {
        guard (try? OpenSSL.load()) != nil, let text = try? SmallFile.read(path), case let .array(entries)? = try? JSONValue.parse(Array(text.utf8)) else { return [:] }
        var sessions: [HTTPConnection.Key: TLSSession] = [:]
        for case let .object(fields) in entries {
            guard case let .string(scheme)? = fields["scheme"], case let .string(host)? = fields["host"],
                  case let .number(port)? = fields["port"], let portNumber = Int(port),
                  case let .string(hex)? = fields["session"], let bytes = Digest.bytes(hex: hex),
                  let session = TLSSession(encoded: bytes) else { continue }
            sessions[HTTPConnection.Key(scheme: scheme, host: host, port: portNumber)] = session
        }
        return sessions
    }

    /// Replaces the file with `sessions` (not flushed to the disk: a session lost in a power cut
    /// costs one full handshake).
    func save(_ sessions: [HTTPConnection.Key: TLSSession]) throws(FileError) {
        let entries = sessions.compactMap { key, session -> JSONValue? in
            guard let bytes = session.encoded else { return nil }
            return .object(["scheme": .string(key.scheme), "host": .string(key.host), "port": .number(String(key.port)),
                            "session": .string(Digest.hex(bytes))])
        }
        try SmallFile.replace(path, with: JSONValue.array(entries).text + "\n", mode: 0o600, durable: false)
    }
}
