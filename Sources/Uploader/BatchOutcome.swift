import AWSLocation
import Spool
import TrackingCore

/// What a tracker's answer means for each position of the batch: stored, to send again later
/// (`ThrottlingError`, `InternalServerError`), or refused for good (by error code, with the
/// service's words). Pure: the uploader acts on it.
struct BatchOutcome: Sendable {
    var stored: [SpooledPosition] = []
    var retryLater: [SpooledPosition] = []
    /// Refused positions by error code, in code order.
    var refused: [(code: String, message: String, rows: [SpooledPosition])] = []

    /// Matches item errors to the positions by sample time (the only key the API echoes).
    init(_ rows: [SpooledPosition], itemErrors: [BatchItemError]) {
        var byTime: [FixTime: BatchItemError] = [:]
        for error in itemErrors { if let time = error.sampleTime { byTime[time] = error } }
        var refusedByCode: [String: (message: String, rows: [SpooledPosition])] = [:]
        for row in rows {
            guard let error = byTime[row.location.time] else {
                stored.append(row)
                continue
            }
            if error.isRetryable {
                retryLater.append(row)
            } else {
                refusedByCode[error.code, default: (error.message, [])].rows.append(row)
            }
        }
        refused = refusedByCode.sorted { $0.key < $1.key }.map { ($0.key, $0.value.message, $0.value.rows) }
    }

    /// The newest stored position, by fix time.
    var newestStored: Location? { stored.map(\.location).max { $0.time < $1.time } }
}
