/// When an idle kept-alive connection is sent a keepalive, a few bytes its server takes in
/// silence, so that a NAT or a load balancer that closes silent connections leaves it open.
///
/// A vehicle's points come tens of seconds apart (30 s under a TimeBased tracker, a heartbeat
/// every `max-interval`), about as long as a cellular NAT's idle timeout: without a keepalive
/// most of them meet a closed connection and pay for a resumed TLS handshake, some 1,100 bytes,
/// where a keepalive costs 27. Past `window` after the last request (a vehicle parked) the
/// connection is left to close: a parked box pays for no connection it does not use.
public struct IdleKeepAlive: Sendable, Equatable {
    /// Silence after which a keepalive goes: under the path's idle timeout (the 60 s many NATs
    /// and load balancers keep), with room for a loaded box to be late.
    public var every: Duration
    /// How long after its last request a connection is kept open: at most
    /// `window / every` keepalives (6 by default, 162 bytes) per idle connection.
    public var window: Duration

    public init(every: Duration = .seconds(45), window: Duration = .seconds(300)) {
        self.every = every
        self.window = window
    }

    /// When a connection whose last request ended at `lastRequest`, and which last carried bytes
    /// at `lastTraffic`, is next sent a keepalive; nil when it is to be left to close.
    public func next(lastRequest: ContinuousClock.Instant, lastTraffic: ContinuousClock.Instant) -> ContinuousClock.Instant? {
        let due = lastTraffic + every
        return due <= lastRequest + window ? due : nil
    }
}
