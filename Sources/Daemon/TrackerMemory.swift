import SystemIO
import TrackingCore

/// What the daemon remembers of its tracker across restarts, in `<state-dir>/tracker.json`: the
/// filtering it last learned (so that a failed DescribeTracker at start never blocks uploads) and
/// the newest position the tracker stored (so that spacing holds across a restart).
struct TrackerMemory: Codable, Sendable, Equatable {
    struct StoredPosition: Codable, Sendable, Equatable {
        var time: String
        var latitude: Double
        var longitude: Double
        var horizontalAccuracy: Double?
    }

    var filtering: String?
    var lastStored: StoredPosition?

    static func path(in directory: String) -> String { directory + "/tracker.json" }

    static func load(from directory: String) -> TrackerMemory {
        guard let text = try? SmallFile.read(path(in: directory)),
              let memory = try? JSONCoder.decode(TrackerMemory.self, from: Array(text.utf8)) else { return TrackerMemory() }
        return memory
    }

    /// Writes the file; returns what went wrong, if anything.
    func save(to directory: String) -> String? {
        guard let data = try? JSONCoder.encode(self) else { return "cannot encode the tracker memory" }
        do throws(FileError) {
            try SmallFile.replace(Self.path(in: directory), with: String(decoding: data, as: UTF8.self) + "\n")
            return nil
        } catch {
            return error.description
        }
    }

    var knownFiltering: TrackerFiltering? { filtering.flatMap(TrackerFiltering.init(rawValue:)) }

    var lastStoredLocation: Location? {
        guard let p = lastStored, let time = FixTime(iso8601: p.time) else { return nil }
        return Location(time: time, mode: .twoD, latitude: p.latitude, longitude: p.longitude, horizontalAccuracy: p.horizontalAccuracy)
    }

    mutating func remember(_ location: Location) {
        lastStored = StoredPosition(time: location.time.iso8601, latitude: location.latitude, longitude: location.longitude,
                                    horizontalAccuracy: location.horizontalAccuracy)
    }
}
