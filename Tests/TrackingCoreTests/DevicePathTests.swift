import Testing
import TrackingCore

@Suite struct DevicePathTests {
    let time = FixTime(iso8601: "2026-11-01T08:00:01Z")!

    @Test func aLocationKeepsItsDevicePathAsGiven() throws {
        var location = try #require(Location(time: time, mode: .twoD, latitude: 1, longitude: 2, device: "/dev/ttyACM0"))
        #expect(location.device == "/dev/ttyACM0")
        location.device = "/dev/ttyUSB1"
        #expect(location.device == "/dev/ttyUSB1")
        location.device = nil
        #expect(location.device == nil)
        location.device = ""
        #expect(location.device == nil, "an empty path is none")
        #expect(try #require(Location(time: time, mode: .twoD, latitude: 1, longitude: 2, device: "")).device == nil)
    }

    @Test func keepsEveryPathLibgpsCanGiveWhole() {
        // libgps holds a path in 128 bytes with its NUL; by-id paths run long.
        let byID = "/dev/serial/by-id/usb-u-blox_AG_-_www.u-blox.com_u-blox_GNSS_receiver-if00"
        let longest = byID + String(repeating: "x", count: DevicePath.capacity - byID.utf8.count)
        #expect(longest.utf8.count == 127)
        for path in [byID, longest, "/dev/gnss0", "/dev/ttyé"] {
            #expect(DevicePath(path).description == path)
        }
    }

    @Test func cutsALongerPathAtTheLastWholeCharacter() {
        let ascii = String(repeating: "a", count: 200)
        #expect(DevicePath(ascii).description == String(repeating: "a", count: 127))
        // "é" is two bytes: at bytes 126 and 127 it would be cut in half, so it goes whole.
        let accented = String(repeating: "a", count: 126) + "é"
        #expect(DevicePath(accented).description == String(repeating: "a", count: 126))
        // A four-byte character from byte 125 on.
        let emoji = String(repeating: "a", count: 125) + "🛰️"
        #expect(DevicePath(emoji).description == String(repeating: "a", count: 125))
    }

    @Test func pathsAreEqualWhenTheirTextIs() {
        #expect(DevicePath("/dev/ttyACM0") == DevicePath("/dev/ttyACM0"))
        #expect(DevicePath("/dev/ttyACM0") != DevicePath("/dev/ttyACM1"))
        #expect(DevicePath("/dev/ttyACM") != DevicePath("/dev/ttyACM0"))
        #expect(DevicePath() == DevicePath(""))
        #expect(DevicePath().isEmpty && !DevicePath("/dev/gnss0").isEmpty)
    }

    @Test func locationsDifferingOnlyInTheirDeviceDiffer() throws {
        let a = try #require(Location(time: time, mode: .twoD, latitude: 1, longitude: 2, device: "/dev/ttyACM0"))
        var b = a
        #expect(a == b)
        b.device = "/dev/ttyACM1"
        #expect(a != b)
        b.device = nil
        #expect(a != b)
    }
}
