import Foundation
import Testing
import TrackingCore

/// gpstrackd's JSON against Foundation's coders as the reference, and against RFC 8259's rules.
@Suite struct JSONCoderTests {
    struct Accuracy: Codable, Equatable { var Horizontal: Double }

    struct Sample: Codable, Equatable {
        var name: String
        var count: Int
        var big: Int64
        var ratio: Double
        var flag: Bool
        var position: [Double]
        var accuracy: Accuracy?
        var properties: [String: String]?
        var nested: [[Int]]
        var note: String?
    }

    static let samples = [
        Sample(name: "truck \"9\" / \\ é 🚚 \n\t\u{01}", count: -42, big: 9_007_199_254_740_993, ratio: 0.1, flag: true,
               position: [13.4, 52.5, -0.000012345], accuracy: .init(Horizontal: 4.2), properties: ["speed": "12.3", "a": ""],
               nested: [[1, 2], [], [3]], note: nil),
        Sample(name: "", count: 0, big: Int64.min, ratio: 1e300, flag: false, position: [], accuracy: nil, properties: nil,
               nested: [], note: "x"),
        Sample(name: "12", count: Int.max, big: 100, ratio: -2.5e-308, flag: true, position: [180, -90], accuracy: .init(Horizontal: 0),
               properties: [:], nested: [[0]], note: ""),
    ]

    @Test func roundTripsAndAgreesWithFoundationBothWays() throws {
        let reference = JSONEncoder()
        reference.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        for sample in Self.samples {
            let ours = try JSONCoder.encode(sample)
            #expect(try JSONCoder.decode(Sample.self, from: ours) == sample)
            #expect(try JSONDecoder().decode(Sample.self, from: Data(ours)) == sample, "Foundation reads ours")
            let theirs = try reference.encode(sample)
            #expect(try JSONCoder.decode(Sample.self, from: Array(theirs)) == sample, "we read Foundation's")
        }
    }

    @Test func writesSortedKeysLeavesNilOutAndEscapesOnlyWhatJSONNeeds() throws {
        let text = String(decoding: try JSONCoder.encode(Self.samples[1]), as: UTF8.self)
        #expect(text == #"{"big":-9223372036854775808,"count":0,"flag":false,"name":"","nested":[],"note":"x","position":[],"ratio":1e+300}"#)
        #expect(JSONValue.string("a/b \"q\" \u{1F}").text == #""a/b \"q\" \u001f""#)
        #expect(JSONValue.object(["b": .null, "a": .array([.bool(true), .number("1.5")])]).text == #"{"a":[true,1.5],"b":null}"#)
        #expect(JSONValue.number(52.0) == .number("52"))
        #expect(JSONValue.number(.nan) == nil)
        #expect(throws: JSONError.self) { try JSONCoder.encode(Accuracy(Horizontal: .infinity)) }
    }

    @Test func parsesEscapesNumbersAndWhiteSpace() throws {
        let value = try JSONValue.parse(Array(#" { "s" : "a\"b\\c\/d\b\f\n\r\t\u00e9\ud83d\ude9a" , "n" : [ -0 , 1.5e3 , 2E-2 ] , "t" : true , "z" : null } "#.utf8))
        #expect(value == .object([
            "s": .string("a\"b\\c/d\u{08}\u{0C}\n\r\té🚚"),
            "n": .array([.number("-0"), .number("1.5e3"), .number("2E-2")]),
            "t": .bool(true), "z": .null,
        ]))
    }

    @Test func rejectsWhatIsNotJSONWithWhereAndWhy() {
        for (text, problem) in [
            (#"{"a":1} x"#, "unexpected text after the value"),
            (#"{"a":1"#, "unterminated object"),
            (#"["a","#, "unexpected end of text"),
            ("\"tab\tinside\"", "control character in a string"),
            (#""\x""#, "invalid escape"),
            (#""\ud83d""#, "unpaired surrogate"),
            ("01", "unexpected text after the value"),
            ("1.", "expected digits after '.'"),
            ("-", "unexpected character"),
            ("nul", "unexpected character"),
            (#"{"a" 1}"#, "expected ':'"),
            (String(repeating: "[", count: 100), "nested too deeply"),
        ] {
            #expect(throws: JSONError.self, "\(text)") { try JSONValue.parse(Array(text.utf8)) }
            do {
                _ = try JSONValue.parse(Array(text.utf8))
            } catch {
                #expect(error.problem == problem, "\(text): \(error)")
            }
        }
    }

    @Test func decodingNamesTheMissingOrMistypedField() {
        do {
            _ = try JSONCoder.decode(Accuracy.self, from: Array(#"{"horizontal":1}"#.utf8))
            Issue.record("decoded without the field")
        } catch {
            #expect(error.description.contains("missing 'Horizontal'"), "\(error)")
        }
        do {
            _ = try JSONCoder.decode(Accuracy.self, from: Array(#"{"Horizontal":"4"}"#.utf8))
            Issue.record("decoded a string as a number")
        } catch {
            #expect(error.description.contains("expected a number at 'Horizontal'"), "\(error)")
        }
        #expect(throws: JSONError.self) { try JSONCoder.decode(Int8.self, from: Array("300".utf8)) }
        #expect(throws: JSONError.self) { try JSONCoder.decode(Int.self, from: Array("1.5".utf8)) }
        #expect((try? JSONCoder.decode(Int.self, from: Array("2.0".utf8))) == 2)
        #expect((try? JSONCoder.decode(Sample.self, from: Array(#"{"name":"n","count":1,"big":2,"ratio":3,"flag":true,"position":[],"nested":[],"accuracy":null}"#.utf8)))?.accuracy == nil,
                "null reads as an absent optional")
    }
}
