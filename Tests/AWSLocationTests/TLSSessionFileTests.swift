@testable import AWSLocation
import Foundation
import Testing

@Suite struct TLSSessionFileTests {
    @Test func readsBackTheHexItWrites() {
        let bytes: [UInt8] = [0x00, 0x01, 0x7f, 0x80, 0xab, 0xff]
        #expect(Digest.bytes(hex: Digest.hex(bytes)) == bytes)
        #expect(Digest.bytes(hex: "") == [])
    }

    @Test func refusesWhatIsNotItsHex() {
        #expect(Digest.bytes(hex: "abc") == nil, "an odd count")
        #expect(Digest.bytes(hex: "0g") == nil, "not a digit")
        #expect(Digest.bytes(hex: "AB") == nil, "upper case is not what it writes")
    }

    @Test func aMissingOrDamagedFileGivesNoSession() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("gpstrackd-tls-\(UUID().uuidString.prefix(8))").path
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let file = TLSSessionFile(path: directory + "/tls-sessions.json")
        #expect(file.load().isEmpty, "no file yet")
        for damaged in ["", "{}", "[1, \"x\"]", #"[{"scheme":"https","host":"h","port":443,"session":"zz"}]"#,
                        #"[{"scheme":"https","host":"h","port":443,"session":"00ff"}]"#] {
            try damaged.write(toFile: file.path, atomically: true, encoding: .utf8)
            #expect(file.load().isEmpty, "\(damaged)")
        }
    }
}
