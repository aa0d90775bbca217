import Glibc
import Spool
import SystemIO
import TrackingCore

/// The `file` sink: JSON lines (the `watch` schema plus `"kept"`), fsynced before the positions
/// are acknowledged, rotated to `<file>.1` beyond `maxBytes`. Large batches one at a time (the
/// lines stay in order), at most one write and fsync per `upload-interval` unless 500 are queued,
/// no request rate, and what is queued at a stop is written before the daemon exits.
public struct FileDestination: Destination {
    public let path: String
    public let maxBytes: Int64
    /// Positions per write.
    public static let batchSize = 500

    public init(path: String, maxBytes: Int64) {
        self.path = path
        self.maxBytes = maxBytes
    }

    public var name: String { "the file \(path)" }

    public func limits(_ configuration: Uploader.Configuration) -> DestinationLimits {
        DestinationLimits(batchSize: Self.batchSize, maxInFlight: 1, rateLimited: false, drainsOnStop: true, waitsFromFixTime: false)
    }

    public func deliver(_ batch: [SpooledPosition], _ configuration: Uploader.Configuration) async throws(DeliveryFailure) -> [PositionOutcome] {
        let text = batch.map { row in
            LocationJSON.line(for: row.location, extra: row.kept.map { [("kept", $0.rawValue)] } ?? []) + "\n"
        }.joined()
        var info = stat()
        if stat(path, &info) == 0, Int64(info.st_size) >= maxBytes { rename(path, path + ".1") }
        do throws(FileError) {
            try SmallFile.append(text, to: path)
        } catch {
            // A full disk or a missing directory: written later, the positions kept in the spool.
            throw DeliveryFailure(error.description, disposition: .retry(after: nil))
        }
        return batch.map { _ in .stored }
    }
}
