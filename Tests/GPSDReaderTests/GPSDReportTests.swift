@testable import GPSDReader
import Testing
import TrackingCore

@Suite struct GPSDReportTests {
    @Test func recognisesAnUnpluggedDevice() {
        #expect(GPSDReport.classify(rawLine: #"{"class":"DEVICE","path":"/dev/ttyACM0","activated":0}"#)
            == .deviceDeactivated(path: "/dev/ttyACM0"))
        #expect(GPSDReport.classify(rawLine: #"{"class":"DEVICE","path":"/dev/ttyACM0","activated":"2026-11-30T05:30:57.080Z","native":0}"#)
            == .deviceActivated(path: "/dev/ttyACM0"))
    }

    @Test func leavesTPVAndATTToLibgps() {
        #expect(GPSDReport.classify(rawLine: #"{"class":"TPV","mode":3}"#) == nil)
        #expect(GPSDReport.classify(rawLine: #"{"class":"ATT","heading":3.5}"#) == nil)
    }

    @Test func marksNonJSONUnparsable() {
        #expect(GPSDReport.classify(rawLine: "$GPRMC,junk") == .unparsable(line: "$GPRMC,junk"))
        #expect(GPSDReport.classify(rawLine: #"{"nope":1}"#) == .unparsable(line: #"{"nope":1}"#))
    }

    @Test func salvagesTheHeadingOfGarbledATT() {
        // gpsd 3.22 with HDT and GST from the same receiver.
        let line = #"{"class":"ATT","device":"/dev/pts/5",,"time":"2026-11-01T08:03:07.000Z""heading":89.980,"dip":2.800,"acc_len":2.800}"#
        #expect(GPSDReport.salvageAttitude(rawLine: line)
            == .malformedAttitude(heading: 89.98, time: FixTime(iso8601: "2026-11-01T08:03:07Z")))
        #expect(GPSDReport.salvageAttitude(rawLine: #"{"class":"ATT","heading":nan}"#) == .malformedAttitude(heading: nil, time: nil))
    }

    @Test func readsFieldsInPlace() {
        #"{"class":"DEVICE","path":"/dev/ttyACM0","activated":0,"x":-1.5e2,"y":12abc,"z":"open"#.withCString {
            let line = RawLine(base: $0)
            #expect(line.hasPrefix(#"{"class":"DEVICE""#))
            #expect(!line.hasPrefix(#"{"class":"TPV""#))
            #expect(line.string(#""class":""#) == "DEVICE")
            #expect(line.string(#""path":""#) == "/dev/ttyACM0")
            #expect(line.string(#""z":""#) == nil, "a string without its closing quote")
            #expect(line.string(#""missing":""#) == nil)
            #expect(line.isZero(#""activated":"#))
            #expect(line.number(#""x":"#) == -150)
            #expect(line.number(#""y":"#) == 12, "the number part before junk, as before")
            #expect(line.number(#""path":"#) == nil, "a string is not a number")
            #expect(!line.isEmpty)
        }
        #"{"activated":05}"#.withCString { #expect(!RawLine(base: $0).isZero(#""activated":"#)) }
        #"{"heading":-inf}"#.withCString { #expect(RawLine(base: $0).number(#""heading":"#) == nil) }
        "".withCString { #expect(RawLine(base: $0).isEmpty) }
    }
}
