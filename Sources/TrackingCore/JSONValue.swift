/// A JSON document in memory, with its own parser and writer.
///
/// gpstrackd speaks JSON to the tracker API, to Cognito and in its status file. Foundation's
/// coders would do, but linking them costs a small box over 2 MB of resident memory; this is
/// the little that is needed: RFC 8259 parsing, and writing with sorted keys.
public enum JSONValue: Sendable, Equatable {
    case null
    case bool(Bool)
    /// A number as written, so that integers keep every digit.
    case number(String)
    case string(String)
    case array([JSONValue])
    case object([String: JSONValue])

    /// Parses one JSON text (surrounding white space allowed).
    public static func parse(_ bytes: some Collection<UInt8>) throws(JSONError) -> JSONValue {
        var parser = Parser(bytes: Array(bytes))
        parser.skipWhitespace()
        let value = try parser.value(depth: 0)
        parser.skipWhitespace()
        guard parser.position == parser.bytes.count else { throw parser.error("unexpected text after the value") }
        return value
    }

    /// The compact JSON text, object keys sorted, `/` not escaped.
    public var text: String { String(decoding: bytes, as: UTF8.self) }

    public var bytes: [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(256)
        write(to: &out)
        return out
    }

    private func write(to out: inout [UInt8]) {
        switch self {
        case .null: out.append(contentsOf: "null".utf8)
        case let .bool(value): out.append(contentsOf: (value ? "true" : "false").utf8)
        case let .number(text): out.append(contentsOf: text.utf8)
        case let .string(text): Self.writeString(text, to: &out)
        case let .array(values):
            out.append(UInt8(ascii: "["))
            for (index, value) in values.enumerated() {
                if index > 0 { out.append(UInt8(ascii: ",")) }
                value.write(to: &out)
            }
            out.append(UInt8(ascii: "]"))
        case let .object(members):
            out.append(UInt8(ascii: "{"))
            for (index, key) in members.keys.sorted().enumerated() {
                if index > 0 { out.append(UInt8(ascii: ",")) }
                Self.writeString(key, to: &out)
                out.append(UInt8(ascii: ":"))
                members[key]!.write(to: &out)
            }
            out.append(UInt8(ascii: "}"))
        }
    }

    /// Appends `value` as a JSON string literal to text (a log line, a JSON line): the one
    /// escaper, shared with the encoder.
    public static func appendQuoted(_ value: String, to out: inout String) {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(value.utf8.count + 2)
        writeString(value, to: &bytes)
        out.append(String(decoding: bytes, as: UTF8.self))
    }

    /// A JSON string: UTF-8 as is, with quotes, backslashes and control characters escaped.
    private static func writeString(_ text: String, to out: inout [UInt8]) {
        out.append(UInt8(ascii: "\""))
        for byte in text.utf8 {
            switch byte {
            case UInt8(ascii: "\""): out.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "\"")])
            case UInt8(ascii: "\\"): out.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "\\")])
            case UInt8(ascii: "\n"): out.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "n")])
            case UInt8(ascii: "\r"): out.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "r")])
            case UInt8(ascii: "\t"): out.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "t")])
            case 0..<0x20:
                let digits = Array("0123456789abcdef".utf8)
                out.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "u"), UInt8(ascii: "0"), UInt8(ascii: "0"),
                                        digits[Int(byte >> 4)], digits[Int(byte & 0xF)]])
            default: out.append(byte)
            }
        }
        out.append(UInt8(ascii: "\""))
    }

    /// A finite `Double` as a JSON number (integral values without a fraction).
    public static func number(_ value: Double) -> JSONValue? {
        guard value.isFinite else { return nil }
        if value == value.rounded(), abs(value) < 1e15 { return .number(String(Int64(value))) }
        return .number(value.description)
    }

    private struct Parser {
        let bytes: [UInt8]
        var position = 0

        func error(_ problem: String) -> JSONError { JSONError(problem: problem, offset: position) }

        mutating func skipWhitespace() {
            while position < bytes.count, [0x20, 0x0A, 0x0D, 0x09].contains(bytes[position]) { position += 1 }
        }

        mutating func value(depth: Int) throws(JSONError) -> JSONValue {
            guard depth < 64 else { throw error("nested too deeply") }
            guard position < bytes.count else { throw error("unexpected end of text") }
            switch bytes[position] {
            case UInt8(ascii: "{"): return try object(depth: depth)
            case UInt8(ascii: "["): return try array(depth: depth)
            case UInt8(ascii: "\""): return .string(try string())
            case UInt8(ascii: "t"): try literal("true"); return .bool(true)
            case UInt8(ascii: "f"): try literal("false"); return .bool(false)
            case UInt8(ascii: "n"): try literal("null"); return .null
            default: return try number()
            }
        }

        mutating func literal(_ word: StaticString) throws(JSONError) {
            let count = word.utf8CodeUnitCount
            guard position + count <= bytes.count,
                  bytes[position..<(position + count)].elementsEqual(UnsafeBufferPointer(start: word.utf8Start, count: count))
            else { throw error("unexpected character") }
            position += count
        }

        mutating func object(depth: Int) throws(JSONError) -> JSONValue {
            position += 1
            var members: [String: JSONValue] = [:]
            skipWhitespace()
            if position < bytes.count, bytes[position] == UInt8(ascii: "}") {
                position += 1
                return .object(members)
            }
            while true {
                skipWhitespace()
                guard position < bytes.count, bytes[position] == UInt8(ascii: "\"") else { throw error("expected a member name") }
                let key = try string()
                skipWhitespace()
                guard position < bytes.count, bytes[position] == UInt8(ascii: ":") else { throw error("expected ':'") }
                position += 1
                skipWhitespace()
                members[key] = try value(depth: depth + 1)
                skipWhitespace()
                guard position < bytes.count else { throw error("unterminated object") }
                if bytes[position] == UInt8(ascii: ",") { position += 1; continue }
                guard bytes[position] == UInt8(ascii: "}") else { throw error("expected ',' or '}'") }
                position += 1
                return .object(members)
            }
        }

        mutating func array(depth: Int) throws(JSONError) -> JSONValue {
            position += 1
            var values: [JSONValue] = []
            skipWhitespace()
            if position < bytes.count, bytes[position] == UInt8(ascii: "]") {
                position += 1
                return .array(values)
            }
            while true {
                skipWhitespace()
                values.append(try value(depth: depth + 1))
                skipWhitespace()
                guard position < bytes.count else { throw error("unterminated array") }
                if bytes[position] == UInt8(ascii: ",") { position += 1; continue }
                guard bytes[position] == UInt8(ascii: "]") else { throw error("expected ',' or ']'") }
                position += 1
                return .array(values)
            }
        }

        mutating func number() throws(JSONError) -> JSONValue {
            let start = position
            func digits(_ p: inout Int, _ bytes: [UInt8]) -> Int {
                let from = p
                while p < bytes.count, (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(bytes[p]) { p += 1 }
                return p - from
            }
            if position < bytes.count, bytes[position] == UInt8(ascii: "-") { position += 1 }
            if position < bytes.count, bytes[position] == UInt8(ascii: "0") {
                position += 1  // no leading zeros: "01" is a 0 followed by junk
            } else {
                guard digits(&position, bytes) > 0 else { throw error("unexpected character") }
            }
            if position < bytes.count, bytes[position] == UInt8(ascii: ".") {
                position += 1
                guard digits(&position, bytes) > 0 else { throw error("expected digits after '.'") }
            }
            if position < bytes.count, bytes[position] == UInt8(ascii: "e") || bytes[position] == UInt8(ascii: "E") {
                position += 1
                if position < bytes.count, bytes[position] == UInt8(ascii: "+") || bytes[position] == UInt8(ascii: "-") { position += 1 }
                guard digits(&position, bytes) > 0 else { throw error("expected digits in the exponent") }
            }
            return .number(String(decoding: bytes[start..<position], as: UTF8.self))
        }

        mutating func string() throws(JSONError) -> String {
            position += 1
            var scalars = String.UnicodeScalarView()
            var run = position
            func flush(_ until: Int, _ bytes: [UInt8], _ scalars: inout String.UnicodeScalarView) {
                scalars.append(contentsOf: String(decoding: bytes[run..<until], as: UTF8.self).unicodeScalars)
            }
            while position < bytes.count {
                let byte = bytes[position]
                if byte == UInt8(ascii: "\"") {
                    flush(position, bytes, &scalars)
                    position += 1
                    return String(scalars)
                }
                if byte < 0x20 { throw error("control character in a string") }
                guard byte == UInt8(ascii: "\\") else { position += 1; continue }
                flush(position, bytes, &scalars)
                position += 1
                guard position < bytes.count else { break }
                let escape = bytes[position]
                position += 1
                switch escape {
                case UInt8(ascii: "\""): scalars.append("\"")
                case UInt8(ascii: "\\"): scalars.append("\\")
                case UInt8(ascii: "/"): scalars.append("/")
                case UInt8(ascii: "b"): scalars.append("\u{08}")
                case UInt8(ascii: "f"): scalars.append("\u{0C}")
                case UInt8(ascii: "n"): scalars.append("\n")
                case UInt8(ascii: "r"): scalars.append("\r")
                case UInt8(ascii: "t"): scalars.append("\t")
                case UInt8(ascii: "u"):
                    var code = try hex4()
                    if (0xD800..<0xDC00).contains(code) {
                        guard position + 1 < bytes.count, bytes[position] == UInt8(ascii: "\\"), bytes[position + 1] == UInt8(ascii: "u")
                        else { throw error("unpaired surrogate") }
                        position += 2
                        let low = try hex4()
                        guard (0xDC00..<0xE000).contains(low) else { throw error("unpaired surrogate") }
                        code = 0x10000 + ((code - 0xD800) << 10) + (low - 0xDC00)
                    }
                    guard let scalar = Unicode.Scalar(code) else { throw error("invalid \\u escape") }
                    scalars.append(scalar)
                default:
                    throw error("invalid escape")
                }
                run = position
            }
            throw error("unterminated string")
        }

        mutating func hex4() throws(JSONError) -> UInt32 {
            guard position + 4 <= bytes.count,
                  let code = UInt32(String(decoding: bytes[position..<(position + 4)], as: UTF8.self), radix: 16)
            else { throw error("invalid \\u escape") }
            position += 4
            return code
        }
    }
}

/// JSON that could not be parsed, or did not have the expected shape.
public struct JSONError: Error, Sendable, Equatable, CustomStringConvertible {
    public var problem: String
    public var offset: Int

    public init(problem: String, offset: Int) {
        self.problem = problem
        self.offset = offset
    }

    public var description: String { "invalid JSON at byte \(offset): \(problem)" }
}
