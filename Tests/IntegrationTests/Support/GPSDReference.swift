import Foundation

/// gpsd's own TPV stream, read by `gpspipe -w`: the independent reference the reader is checked against.
struct GPSDReference {
    /// For each distinct fix time with mode >= 2: the highest mode and the last TPV's position.
    struct Epoch { var mode: Int; var latitude: Double?; var longitude: Double? }
    var epochs: [String: Epoch] = [:]
    /// The fix times in the order gpsd reported them first (a receiver's time may step back).
    var order: [String] = []
    /// Heading values of ATT reports, in order.
    var attitudeCount = 0
    var deviceDeactivated = false

    init(jsonLines text: String) {
        for line in text.split(whereSeparator: \.isNewline) {
            if line.contains("\"class\":\"ATT\"") { attitudeCount += 1 }
            if line.contains("\"class\":\"DEVICE\""), line.contains("\"activated\":0") { deviceDeactivated = true }
            guard line.contains("\"class\":\"TPV\""),
                  let object = try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any],
                  let mode = (object["mode"] as? NSNumber)?.intValue, mode >= 2, let time = object["time"] as? String
            else { continue }
            if epochs[time] == nil { order.append(time) }
            var epoch = epochs[time] ?? Epoch(mode: mode)
            epoch.mode = max(epoch.mode, mode)
            if let lat = (object["lat"] as? NSNumber)?.doubleValue, let lon = (object["lon"] as? NSNumber)?.doubleValue {
                epoch.latitude = lat
                epoch.longitude = lon
            }
            epochs[time] = epoch
        }
    }
}
