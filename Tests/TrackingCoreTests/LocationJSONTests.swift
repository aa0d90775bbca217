import Testing
import TrackingCore

@Suite struct LocationJSONTests {
    @Test func writesKnownKeysInOrderAndLeavesUnknownOut() throws {
        let location = try #require(Location(
            time: FixTime(iso8601: "2026-11-01T08:00:01Z")!, mode: .threeD, latitude: 52.516195, longitude: 13.377602167,
            altitudeMSL: 36.5, course: 140.9, speed: 0.057, horizontalAccuracy: 13.3, device: "/dev/ttyACM0"))
        #expect(LocationJSON.line(for: location) ==
            #"{"time":"2026-11-01T08:00:01.000Z","mode":"3d","latitude":52.516195,"longitude":13.377602167,"altitudeMSL":36.5,"course":140.9,"speed":0.057,"horizontalAccuracy":13.3,"device":"/dev/ttyACM0"}"#)
    }

    /// The filter's accuracy is written only where it is not the one reported, so a recording
    /// carries both and a location without a GST is written as it always was.
    @Test func writesTheFiltersAccuracyOnlyWhereItDiffers() throws {
        var location = try #require(Location(
            time: FixTime(iso8601: "2026-11-01T08:00:01Z")!, mode: .twoD, latitude: 52.5, longitude: 13.4,
            horizontalAccuracy: 6.22, filterAccuracy: 22.8))
        #expect(LocationJSON.line(for: location) ==
            #"{"time":"2026-11-01T08:00:01.000Z","mode":"2d","latitude":52.5,"longitude":13.4,"horizontalAccuracy":6.22,"filterAccuracy":22.8}"#)
        location.filterAccuracy = 6.22
        #expect(!LocationJSON.line(for: location).contains("filterAccuracy"))
    }

    @Test func escapesStringsAndAppendsExtras() throws {
        let location = try #require(Location(
            time: FixTime(iso8601: "2026-11-01T08:00:01.5Z")!, mode: .twoD, latitude: -1, longitude: 2, device: "a\"b\\c\n"))
        #expect(LocationJSON.line(for: location, extra: [("kept", "heartbeat")]) ==
            #"{"time":"2026-11-01T08:00:01.500Z","mode":"2d","latitude":-1.0,"longitude":2.0,"device":"a\"b\\c\n","kept":"heartbeat"}"#)
    }

    @Test func oneEscaperForTextAndForTheEncoder() throws {
        var text = ""
        JSONValue.appendQuoted("say \"hi\"\\ \n\t\u{01} é", to: &text)
        #expect(text == "\"say \\\"hi\\\"\\\\ \\n\\t\\u0001 é\"")
        #expect(String(decoding: JSONValue.string("say \"hi\"\\ \n\t\u{01} é").bytes, as: UTF8.self) == text, "the encoder writes the same")
        #expect(try JSONValue.parse(Array(text.utf8)) == .string("say \"hi\"\\ \n\t\u{01} é"), "and it reads back")
    }
}
