/// A long-running part of the daemon, in swift-service-lifecycle's shape: `run()` does the work
/// until it is done or asked to stop; a `ServiceGroup` runs several and shuts them down in order.
///
/// The daemon is a handful of these (the pipeline, the sink, status, reload), each unit-tested
/// on its own: nothing in one reaches into another except through what it was given.
protocol Service: Sendable {
    /// The service's name in log lines ("pipeline", "sink", ...).
    var name: String { get }
    /// Does the service's work; returns when it is done, or soon after `shutDownGracefully()`.
    func run() async throws
    /// Asks `run()` to finish what it holds and return. The group calls it in reverse order of the
    /// services (the last one listed stops first), and again on cancellation: it must be safe to
    /// call more than once.
    func shutDownGracefully()
    /// How the service shows it is alive, for the watchdog; nil when it has no loop to watch.
    var liveness: Liveness? { get }
}

extension Service {
    var liveness: Liveness? { nil }
}
