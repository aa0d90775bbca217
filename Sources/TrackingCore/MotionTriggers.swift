/// The second stage of the filter chain: decides which good fixes are worth keeping.
///
/// A fix is kept when a trigger fires: the first fix; a heartbeat (`max-interval` while moving,
/// `stationary-interval` while stopped); path deviation (the straight line from the last kept fix
/// to this one would pass more than `max-deviation` from a fix seen since: the fix before is
/// kept, so corners and curves keep their shape with few points); a stop or a departure; and the
/// optional `min-distance` and `min-angle`. While stopped only the heartbeat fires, so receiver
/// drift never adds points.
///
/// "Stopped" has hysteresis: moving → stopped after `stop-delay` seconds of fixes no faster than
/// `stopped-speed`; stopped → moving after two consecutive fixes at least `moving-speed` fast,
/// or a fix beyond `departure-distance` (and both accuracies) from the stop point.
/// All timing is receiver fix time.
public struct MotionTriggers: Sendable {
    /// Whether the vehicle is moving, as decided with hysteresis.
    public enum Motion: String, Sendable { case moving, stopped }

    public var configuration: FilterConfiguration
    public private(set) var motion: Motion = .stopped
    public private(set) var lastKept: Location?

    /// Accepted fixes since the last kept one, with their positions in a plane around it.
    private var since: [(location: Location, x: Double, y: Double)] = []
    private var plane: LocalPlane?
    /// The previous accepted fix.
    private var previous: Location?
    /// Moving: when the current run of slow fixes began.
    private var slowSince: FixTime?
    /// Stopped: where the vehicle stopped, consecutive fast fixes, and the fix before them.
    private var stopPoint: Location?
    private var fastRun = 0
    private var beforeFastRun: Location?

    /// Longest run of fixes held for the deviation check before one is kept regardless.
    private let maxHeld = 5000

    public init(configuration: FilterConfiguration) {
        self.configuration = configuration
    }

    /// Processes one fix that passed the gate; returns what to keep, in time order.
    public mutating func process(_ fix: Location) -> [KeptLocation] {
        defer { previous = fix }
        guard let last = lastKept else {
            motion = (fix.speed ?? 0) >= configuration.movingSpeed ? .moving : .stopped
            stopPoint = motion == .stopped ? fix : nil
            return [keep(fix, .first)]
        }
        switch motion {
        case .stopped:
            return processStopped(fix, last: last)
        case .moving:
            return processMoving(fix, last: last)
        }
    }

    /// At the end of a stream: the last fix, when moving and not yet kept, so the track reaches it.
    public mutating func finish() -> KeptLocation? {
        guard motion == .moving, let previous, let last = lastKept, previous.time > last.time else { return nil }
        return keep(previous, .final)
    }

    // MARK: - Stopped

    private mutating func processStopped(_ fix: Location, last: Location) -> [KeptLocation] {
        let anchor = stopPoint ?? last
        if (fix.speed ?? 0) >= configuration.movingSpeed {
            if fastRun == 0 { beforeFastRun = previous }
            fastRun += 1
        } else {
            fastRun = 0
            beforeFastRun = nil
        }
        let distance = Geodesy.distance(anchor, fix)
        let far = distance > configuration.departureDistance
            && distance > (anchor.horizontalAccuracy ?? 0) + (fix.horizontalAccuracy ?? 0)
        guard fastRun >= 2 || far else {
            if last.time.seconds(to: fix.time) >= configuration.stationaryInterval {
                return [keep(fix, .heartbeat)]
            }
            return []
        }
        motion = .moving
        stopPoint = nil
        slowSince = nil
        var out: [KeptLocation] = []
        // The departure point: the last fix before the vehicle moved. Where it stands at the
        // point already kept (the stop point, or the first fix), give or take receiver drift,
        // it adds nothing to the track.
        if let departure = beforeFastRun ?? previous, departure.time > last.time,
           Geodesy.distance(last, departure)
            > max(configuration.maxDeviation, (last.horizontalAccuracy ?? 0) + (departure.horizontalAccuracy ?? 0)) {
            out.append(keep(departure, .departure))
        }
        fastRun = 0
        beforeFastRun = nil
        hold(fix)
        return out
    }

    // MARK: - Moving

    private mutating func processMoving(_ fix: Location, last: Location) -> [KeptLocation] {
        var out: [KeptLocation] = []
        if let speed = fix.speed, speed <= configuration.stoppedSpeed {
            let start = slowSince ?? fix.time
            slowSince = start
            if start.seconds(to: fix.time) >= configuration.stopDelay {
                // The corners on the way to the stop; the slow fixes themselves are drift.
                since.removeAll { $0.location.time >= start }
                out += keepCorners(upTo: fix)
                motion = .stopped
                slowSince = nil
                stopPoint = fix
                fastRun = 0
                out.append(keep(fix, .stop))
                return out
            }
        } else {
            slowSince = nil
        }
        // While slowing to a possible stop, receiver drift would look like corners: hold the
        // fixes and decide when the vehicle either stops or moves on.
        if slowSince == nil {
            out += keepCorners(upTo: fix)
        }
        if let trigger = trigger(for: fix, reference: lastKept ?? last) {
            out.append(keep(fix, trigger))
        } else {
            hold(fix)
            if since.count > maxHeld, let corner = since.last?.location {
                out.append(keep(corner, .deviation))
            }
        }
        return out
    }

    /// The time- and distance-based triggers for `fix`, measured from the last kept fix.
    private func trigger(for fix: Location, reference: Location) -> KeepTrigger? {
        let elapsed = reference.time.seconds(to: fix.time)
        guard elapsed >= configuration.minInterval else { return nil }
        if elapsed >= configuration.maxInterval { return .heartbeat }
        if let minDistance = configuration.minDistance {
            let distance = Geodesy.distance(reference, fix)
            if distance >= minDistance, distance > (reference.horizontalAccuracy ?? 0) + (fix.horizontalAccuracy ?? 0) {
                return .distance
            }
        }
        if let minAngle = configuration.minAngle, let course = fix.course, let keptCourse = reference.course,
           (fix.speed ?? 0) >= configuration.movingSpeed, Geodesy.angleBetween(course, keptCourse) >= minAngle {
            return .angle
        }
        return nil
    }

    /// Keeps the corners between the last kept fix and `fix`: while the straight line from the
    /// last kept fix to `fix` passes farther than `max-deviation` from a held fix, the held fix
    /// farthest from it is kept (the apex of the corner or curve, as in Douglas–Peucker), and the
    /// fixes after it are checked again against the line from there.
    private mutating func keepCorners(upTo fix: Location) -> [KeptLocation] {
        var out: [KeptLocation] = []
        while let plane, let last = lastKept, !since.isEmpty {
            let a = (x: 0.0, y: 0.0)
            let b = plane.project(fix)
            var farthest = -1
            var worst = configuration.maxDeviation
            for (index, held) in since.enumerated() {
                let distance = LocalPlane.distance(from: (held.x, held.y), toSegment: a, b)
                if distance > worst {
                    worst = distance
                    farthest = index
                }
            }
            guard farthest >= 0 else { break }
            let corner = since[farthest].location
            guard last.time.seconds(to: corner.time) >= configuration.minInterval else { break }
            let rest = since[(farthest + 1)...].map(\.location)
            out.append(keep(corner, .deviation))
            for held in rest { hold(held) }
        }
        return out
    }

    private mutating func hold(_ fix: Location) {
        guard let plane else { return }
        let p = plane.project(fix)
        since.append((fix, p.x, p.y))
    }

    private mutating func keep(_ fix: Location, _ trigger: KeepTrigger) -> KeptLocation {
        lastKept = fix
        since.removeAll(keepingCapacity: true)
        plane = LocalPlane(latitude: fix.latitude, longitude: fix.longitude)
        return KeptLocation(location: fix, trigger: trigger)
    }
}
