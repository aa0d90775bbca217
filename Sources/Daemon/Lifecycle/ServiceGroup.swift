/// Runs services together and shuts them down in order (swift-service-lifecycle's `ServiceGroup`).
///
/// All services run in one task group. The first shutdown signal, or any service returning or
/// throwing, begins a graceful shutdown: the services are asked to stop in reverse order, each
/// once the one after it has ended (the pipeline stops reading and flushes to the spool before
/// the sink is asked to stop, and the sink before status writes its last figures), all under one
/// `deadline`. A second shutdown signal, or the deadline, cancels what is still running.
struct ServiceGroup: Sendable {
    /// Why the group stopped.
    enum Ending: Sendable, Equatable {
        /// A shutdown signal; every service ended within the deadline.
        case signal(Int32)
        /// A service returned or threw first (its name); the others were stopped.
        case serviceEnded(String)
        /// A second signal or the deadline: services still running were cancelled.
        case cancelled
    }

    /// What the group says as it goes (for the log).
    enum Event: Sendable, Equatable {
        case shutdownBegan(signal: Int32?, service: String?)
        case failed(service: String, error: String)
        case cancelling(reason: String, running: [String])
    }

    let services: [any Service]
    let signals: any AsyncSequence<Int32, Never> & Sendable
    let deadline: Duration
    let events: @Sendable (Event) -> Void
    /// Waits out the deadline (a manual clock in tests).
    let sleep: @Sendable (Duration) async -> Void

    init<Signals: AsyncSequence<Int32, Never> & Sendable>(
        services: [any Service], signals: Signals, deadline: Duration,
        sleep: @escaping @Sendable (Duration) async -> Void = { try? await Task.sleep(for: $0) },
        events: @escaping @Sendable (Event) -> Void = { _ in }
    ) {
        self.services = services
        self.signals = signals
        self.deadline = deadline
        self.sleep = sleep
        self.events = events
    }

    private enum Happening: Sendable {
        case ended(Int, error: String?)
        case signal(Int32)
        case deadline
    }

    /// Runs every service until the group stops; returns why, and the first error a service threw.
    func run() async -> (ending: Ending, error: String?) {
        guard !services.isEmpty else { return (.serviceEnded(""), nil) }
        let (happenings, report) = AsyncStream.makeStream(of: Happening.self)
        return await withTaskGroup(of: Void.self) { group in
            for (index, service) in services.enumerated() {
                group.addTask {
                    do {
                        // Cancelled (a second signal, the deadline): asked to stop at once; a
                        // service's stop is bounded, so the group still ends.
                        try await withTaskCancellationHandler {
                            try await service.run()
                        } onCancel: {
                            service.shutDownGracefully()
                        }
                        report.yield(.ended(index, error: nil))
                    } catch {
                        report.yield(.ended(index, error: "\(error)"))
                    }
                }
            }
            let signals = self.signals
            group.addTask {
                for await number in signals { report.yield(.signal(number)) }
            }
            var running = Set(services.indices)
            var ending: Ending?
            var firstError: String?
            /// The service asked to stop and not yet ended, during a shutdown.
            var stopping: Int?
            func stopNext() {
                guard let next = running.max() else { return }
                if stopping != next {
                    stopping = next
                    services[next].shutDownGracefully()
                }
            }
            func begin(_ why: Ending, signal: Int32?, service: String?) {
                ending = why
                events(.shutdownBegan(signal: signal, service: service))
                let (deadline, sleep) = (self.deadline, self.sleep)
                group.addTask {
                    await sleep(deadline)
                    if !Task.isCancelled { report.yield(.deadline) }
                }
                stopNext()
            }
            func cancel(_ reason: String) {
                events(.cancelling(reason: reason, running: running.sorted().map { services[$0].name }))
                ending = .cancelled
                group.cancelAll()
            }
            loop: for await happening in happenings {
                switch happening {
                case let .ended(index, error):
                    running.remove(index)
                    if let error {
                        events(.failed(service: services[index].name, error: error))
                        if firstError == nil { firstError = "\(services[index].name): \(error)" }
                    }
                    if running.isEmpty { break loop }
                    if ending == nil {
                        begin(.serviceEnded(services[index].name), signal: nil, service: services[index].name)
                    } else if ending != .cancelled {
                        stopNext()
                    }
                case let .signal(number):
                    if ending == nil {
                        begin(.signal(number), signal: number, service: nil)
                    } else if ending != .cancelled {
                        cancel("a second signal")
                    }
                case .deadline:
                    if ending != .cancelled { cancel("the shutdown deadline of \(deadline) passed") }
                }
            }
            report.finish()
            group.cancelAll()
            return (ending ?? .serviceEnded(""), firstError)
        }
    }
}
