import TrackingCore

/// Decides when to say "backlog …" and "drained".
struct ProgressTracker {
    let interval: Double
    let threshold: Int
    private var last: ContinuousClock.Instant?
    private var lastUploaded = 0
    private var backlogStart: (ContinuousClock.Instant, Int)?

    init(interval: Double, threshold: Int) {
        self.interval = interval
        self.threshold = threshold
    }

    func due(at now: ContinuousClock.Instant) -> Bool {
        guard let last else { return true }
        return now - last >= .milliseconds(Int64(interval * 1000))
    }

    mutating func update(queued: Int, oldest: FixTime?, uploaded: Int, at now: ContinuousClock.Instant, wall: FixTime) -> UploaderEvent? {
        let elapsed = last.map { (now - $0).seconds } ?? 0
        let rate = elapsed > 0 ? Double(uploaded - lastUploaded) / elapsed : 0
        last = now
        lastUploaded = uploaded
        if queued >= threshold {
            if backlogStart == nil { backlogStart = (now, uploaded) }
            return .backlog(queued: queued, oldest: oldest, ratePerSecond: rate, now: wall)
        }
        if let (start, startUploaded) = backlogStart, queued == 0 {
            backlogStart = nil
            return .drained(uploaded: uploaded - startUploaded, seconds: (now - start).seconds)
        }
        return nil
    }
}
