import Spool
import TrackingCore

/// A destination's answer for a batch, sorted: stored, to send again later, or refused for good
/// (by error code, with the service's words). Pure: the uploader acts on it.
struct BatchOutcome: Sendable {
    var stored: [SpooledPosition] = []
    var retryLater: [SpooledPosition] = []
    /// Whether any of `retryLater` was throttled (the quota, not the service, said no).
    var throttled = false
    /// Refused positions by error code, in code order.
    var refused: [(code: String, message: String, rows: [SpooledPosition])] = []

    /// Sorts `rows` by their outcomes (one each, in order).
    init(_ rows: [SpooledPosition], outcomes: [PositionOutcome]) {
        var refusedByCode: [String: (message: String, rows: [SpooledPosition])] = [:]
        for (row, outcome) in zip(rows, outcomes) {
            switch outcome {
            case .stored: stored.append(row)
            case .retryLater: retryLater.append(row)
            case .throttled:
                retryLater.append(row)
                throttled = true
            case let .refused(code, message): refusedByCode[code, default: (message, [])].rows.append(row)
            }
        }
        // A destination that answered for fewer positions than it was given: the rest go again.
        retryLater += rows.dropFirst(outcomes.count)
        refused = refusedByCode.sorted { $0.key < $1.key }.map { ($0.key, $0.value.message, $0.value.rows) }
    }

    /// The newest stored position, by fix time.
    var newestStored: Location? { stored.map(\.location).max { $0.time < $1.time } }
}
