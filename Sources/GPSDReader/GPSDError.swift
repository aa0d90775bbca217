/// Why talking to gpsd failed, with what the operator can do about it.
public enum GPSDError: Error, Sendable, Equatable, CustomStringConvertible {
    /// `gps_open` failed: gpsd is not running, not listening there, or the host does not resolve.
    case connectFailed(endpoint: GPSDEndpoint, reason: String)
    /// The `?WATCH` request could not be sent.
    case watchFailed(endpoint: GPSDEndpoint, reason: String)
    /// gpsd closed the connection or the socket failed while reading.
    case connectionLost(endpoint: GPSDEndpoint, reason: String)

    public var description: String {
        switch self {
        case let .connectFailed(endpoint, reason):
            return "cannot connect to gpsd at \(endpoint): \(reason); is gpsd running and listening there (systemctl status gpsd.socket gpsd)?"
        case let .watchFailed(endpoint, reason):
            return "gpsd at \(endpoint) did not accept the WATCH request: \(reason)"
        case let .connectionLost(endpoint, reason):
            return "lost the connection to gpsd at \(endpoint): \(reason)"
        }
    }
}
