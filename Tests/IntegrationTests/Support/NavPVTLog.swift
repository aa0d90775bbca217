import Foundation

/// A u-blox receiver speaking its binary protocol, as gpsfake replays it: one UBX NAV-PVT
/// message an epoch (u-blox M8 protocol, UBX-13003221, section 32.17.15), carrying the
/// receiver's own accuracy estimates. gpsd reads those (`hAcc`, `vAcc`, `sAcc`) as the fix's
/// `eph`, `epv` and `eps`, where for an NMEA receiver it has only the HDOP to go on.
struct NavPVTLog {
    struct Epoch {
        var time: Date
        var latitude: Double
        var longitude: Double
        /// `gSpeed`, m/s, and `headMot`, degrees.
        var speed: Double
        var course: Double
        /// `hAcc`, `vAcc` (mm) and `sAcc` (mm/s): what the receiver estimates of itself.
        var horizontalAccuracyMillimetres: UInt32
        var verticalAccuracyMillimetres: UInt32
        var speedAccuracyMillimetresPerSecond: UInt32
        /// `fixType` 3; 0 for an epoch without a fix (a receiver still searching).
        var fixed = true
    }

    var epochs: [Epoch]

    /// The log as gpsfake reads it: a comment header, then the binary messages back to back.
    var bytes: [UInt8] {
        var out = Array("# Name: NAV-PVT epochs written by the test\n# Chipset: u-blox (UBX protocol)\n".utf8)
        for epoch in epochs { out += Self.message(class: 0x01, id: 0x07, payload: Self.payload(epoch)) }
        return out
    }

    func write(to path: String) throws {
        try Data(bytes).write(to: URL(fileURLWithPath: path))
    }

    /// `0xB5 0x62`, class, id, little-endian length, payload, and the 8-bit Fletcher checksum
    /// over class through payload.
    static func message(class messageClass: UInt8, id: UInt8, payload: [UInt8]) -> [UInt8] {
        let body = [messageClass, id, UInt8(payload.count & 0xff), UInt8(payload.count >> 8)] + payload
        var (a, b) = (UInt8(0), UInt8(0))
        for byte in body {
            a &+= byte
            b &+= a
        }
        return [0xB5, 0x62] + body + [a, b]
    }

    /// The 92 bytes of NAV-PVT, little-endian, with the fields gpsd reads.
    static func payload(_ epoch: Epoch) -> [UInt8] {
        var out: [UInt8] = []
        func put<T: FixedWidthInteger>(_ value: T) { withUnsafeBytes(of: value.littleEndian) { out += $0 } }
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(identifier: "UTC")!
        let parts = calendar.dateComponents([.year, .month, .day, .hour, .minute, .second, .weekday], from: epoch.time)
        let secondOfWeek = ((parts.weekday! - 1) * 86_400 + parts.hour! * 3_600 + parts.minute! * 60 + parts.second!)
        put(UInt32(secondOfWeek * 1000))                                  // iTOW, ms (GPS time; gpsd dates the fix from UTC below)
        put(UInt16(parts.year!)); put(UInt8(parts.month!)); put(UInt8(parts.day!))
        put(UInt8(parts.hour!)); put(UInt8(parts.minute!)); put(UInt8(parts.second!))
        put(UInt8(0x07))                                                  // valid: date, time, fully resolved
        put(UInt32(30)); put(Int32(0))                                    // tAcc ns, nano
        put(UInt8(epoch.fixed ? 3 : 0)); put(UInt8(epoch.fixed ? 0x01 : 0)); put(UInt8(0x0a)); put(UInt8(epoch.fixed ? 12 : 0))
        put(Int32((epoch.longitude * 1e7).rounded())); put(Int32((epoch.latitude * 1e7).rounded()))
        put(Int32(80_000)); put(Int32(35_000))                            // height above the ellipsoid and MSL, mm
        put(epoch.horizontalAccuracyMillimetres); put(epoch.verticalAccuracyMillimetres)
        let speed = epoch.speed * 1000, course = epoch.course * .pi / 180
        put(Int32((speed * cos(course)).rounded())); put(Int32((speed * sin(course)).rounded())); put(Int32(0))
        put(Int32(speed.rounded())); put(Int32((epoch.course * 1e5).rounded()))
        put(epoch.speedAccuracyMillimetresPerSecond); put(UInt32(500_000)) // sAcc, headAcc (1e-5 degrees)
        put(UInt16(120))                                                  // pDOP, 0.01
        out += [UInt8](repeating: 0, count: 6)                            // flags3, reserved
        put(Int32(0)); put(Int16(0)); put(UInt16(0))                      // headVeh, magDec, magAcc
        precondition(out.count == 92, "NAV-PVT is 92 bytes, not \(out.count)")
        return out
    }
}
