import Glibc
import SystemIO
import TrackingCore

/// The AWS shared credentials file format (`~/.aws/credentials`, and the systemd credential
/// `aws-credentials`): `[profile]` sections of `key = value` lines.
public struct SharedCredentialsFile: Sendable, Equatable {
    public var path: String
    public var profiles: [String: [String: String]]
    /// True when group or others may read the file: it holds secrets.
    public var isExposed: Bool

    /// Reads and parses `path`; `nil` when the file does not exist.
    public static func load(_ path: String) throws(CredentialError) -> SharedCredentialsFile? {
        guard access(path, F_OK) == 0 else { return nil }
        let text: String
        do throws(FileError) {
            text = try SmallFile.read(path)
        } catch {
            throw .unreadable(path: path, reason: "\(error.reason)")
        }
        var info = stat()
        let exposed = stat(path, &info) == 0 && (info.st_mode & 0o077) != 0
        return try parse(text, path: path, isExposed: exposed)
    }

    public static func parse(_ text: String, path: String, isExposed: Bool = false) throws(CredentialError) -> SharedCredentialsFile {
        var profiles: [String: [String: String]] = [:]
        var current: String?
        for (number, raw) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
            let line = String(raw).trimmingSpaces
            if line.isEmpty || line.hasPrefix("#") || line.hasPrefix(";") { continue }
            if line.hasPrefix("[") {
                guard line.hasSuffix("]") else {
                    throw .unreadable(path: path, reason: "line \(number + 1): a section header must end with ]")
                }
                var name = String(line.dropFirst().dropLast()).trimmingSpaces
                if name.hasPrefix("profile ") { name = String(name.dropFirst("profile ".count)).trimmingSpaces }
                current = String(name)
                profiles[String(name), default: [:]] = profiles[String(name)] ?? [:]
                continue
            }
            guard let equals = line.firstIndex(of: "=") else {
                throw .unreadable(path: path, reason: "line \(number + 1): expected key = value")
            }
            guard let section = current else {
                throw .unreadable(path: path, reason: "line \(number + 1): key outside a [profile] section")
            }
            let key = String(line[..<equals]).trimmingSpaces.lowercased()
            let value = String(line[line.index(after: equals)...]).trimmingSpaces
            profiles[section, default: [:]][key] = String(value)
        }
        return SharedCredentialsFile(path: path, profiles: profiles, isExposed: isExposed)
    }

    /// The credentials of `profile`.
    public func credentials(profile: String, source: String) throws(CredentialError) -> Credentials {
        guard let values = profiles[profile] else { throw .profileNotFound(profile: profile, path: path) }
        guard let key = values["aws_access_key_id"], !key.isEmpty else {
            throw .incomplete(source: "\(source) [\(profile)]", missing: "aws_access_key_id")
        }
        guard let secret = values["aws_secret_access_key"], !secret.isEmpty else {
            throw .incomplete(source: "\(source) [\(profile)]", missing: "aws_secret_access_key")
        }
        let token = values["aws_session_token"].flatMap { $0.isEmpty ? nil : $0 }
        return Credentials(accessKeyID: key, secretAccessKey: secret, sessionToken: token, source: "profile \(profile) in \(source)")
    }
}
