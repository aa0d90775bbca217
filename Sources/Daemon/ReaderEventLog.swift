import GPSDReader

/// The log line for each reader state change: what happened and, for problems, what to check.
enum ReaderEventLog {
    static func log(_ event: ReaderEvent, to logger: Logger) {
        switch event {
        case .location:
            break
        case let .connected(endpoint):
            logger.info("gpsd connected", ["gpsd": endpoint.description])
        case let .unreachable(error, every):
            logger.warning("\(error); retrying with backoff up to every \(every.components.seconds) s")
        case let .disconnected(error):
            logger.warning("\(error); reconnecting")
        case let .noData(after):
            logger.warning("no data from gpsd for \(after.components.seconds) s; is a receiver attached and sending? reconnecting")
        case .dataResumed:
            logger.info("gpsd data flowing again")
        case let .deviceActivated(path):
            logger.info("receiver online", ["device": path])
        case let .deviceDeactivated(path):
            logger.warning("receiver gone (unplugged or stopped responding)", ["device": path])
        case let .fixAcquired(mode):
            logger.info("fix acquired", ["mode": mode.description])
        case .fixLost:
            logger.info("fix lost")
        case let .gpsdError(message):
            logger.warning("gpsd reported an error", ["message": message])
        case .oversizedLine:
            logger.warning("gpsd sent a message longer than libgps can read (about 20 KB, usually a SKY report with very many "
                + "satellites); skipped it by reconnecting at once. Later ones are counted (oversized_lines), not logged")
        case let .timeline(.glitchStarted(time, expected)):
            logger.warning("the receiver reports fix time \(time.iso8601), far from its timeline (near \(expected.iso8601)); "
                + "skipping such fixes until its time is consistent again")
        case let .timeline(.glitchEnded(skipped)):
            logger.notice("the receiver's fix times are consistent again; skipped \(skipped) fix(es) with wrong times")
        case let .timeline(.rebased(from, to)):
            logger.warning("the receiver keeps to fix times near \(to.iso8601) instead of \(from.iso8601); following its new time")
        }
    }
}
