/// `Codable` values to and from JSON text, through `JSONValue`: what gpstrackd needs of
/// Foundation's JSONEncoder and JSONDecoder (keys sorted, optionals left out when nil,
/// numbers as JSON numbers), without linking Foundation.
public enum JSONCoder {
    /// The compact JSON text of `value`, keys sorted.
    public static func encode<T: Encodable>(_ value: T) throws(JSONError) -> [UInt8] {
        let root = Node()
        do {
            try value.encode(to: TreeEncoder(node: root, codingPath: []))
        } catch let error as JSONError {
            throw error
        } catch {
            throw JSONError(problem: "\(error)", offset: 0)
        }
        return root.value.bytes
    }

    /// Decodes `type` from JSON text.
    public static func decode<T: Decodable>(_ type: T.Type, from bytes: some Collection<UInt8>) throws(JSONError) -> T {
        let value = try JSONValue.parse(bytes)
        do {
            return try T(from: TreeDecoder(value: value, codingPath: []))
        } catch let error as JSONError {
            throw error
        } catch {
            throw JSONError(problem: "\(error)", offset: 0)
        }
    }
}

// MARK: - Encoding

/// One value being built; containers share it by reference, as the Encoder protocol requires.
private final class Node {
    enum Content {
        case pending
        case value(JSONValue)
        case object([String: Node])
        case array([Node])
    }

    var content = Content.pending

    var value: JSONValue {
        switch content {
        case .pending: return .object([:])
        case let .value(value): return value
        case let .object(members): return .object(members.mapValues(\.value))
        case let .array(nodes): return .array(nodes.map(\.value))
        }
    }

    func child(_ key: String) -> Node {
        var members: [String: Node] = [:]
        if case let .object(existing) = content { members = existing }
        let node = Node()
        members[key] = node
        content = .object(members)
        return node
    }

    func append() -> Node {
        var nodes: [Node] = []
        if case let .array(existing) = content { nodes = existing }
        let node = Node()
        nodes.append(node)
        content = .array(nodes)
        return node
    }

    /// Stores a primitive, or encodes any other value into this node.
    func store<T: Encodable>(_ value: T, codingPath: [CodingKey]) throws {
        switch value {
        case let v as Bool: content = .value(.bool(v))
        case let v as String: content = .value(.string(v))
        case let v as Double: content = .value(try Self.number(v, codingPath))
        case let v as Float: content = .value(try Self.number(Double(v), codingPath))
        case let v as any BinaryInteger: content = .value(.number(String(describing: v)))
        default: try value.encode(to: TreeEncoder(node: self, codingPath: codingPath))
        }
    }

    private static func number(_ value: Double, _ codingPath: [CodingKey]) throws -> JSONValue {
        guard let number = JSONValue.number(value) else {
            throw JSONError(problem: "\(value) at \(codingPath.map(\.stringValue).joined(separator: ".")) is not a JSON number", offset: 0)
        }
        return number
    }
}

private struct TreeEncoder: Encoder {
    let node: Node
    var codingPath: [CodingKey]
    var userInfo: [CodingUserInfoKey: Any] { [:] }

    func container<Key: CodingKey>(keyedBy type: Key.Type) -> KeyedEncodingContainer<Key> {
        if case .pending = node.content { node.content = .object([:]) }
        return KeyedEncodingContainer(KeyedEncoder(node: node, codingPath: codingPath))
    }

    func unkeyedContainer() -> UnkeyedEncodingContainer {
        if case .pending = node.content { node.content = .array([]) }
        return UnkeyedEncoder(node: node, codingPath: codingPath)
    }

    func singleValueContainer() -> SingleValueEncodingContainer {
        SingleEncoder(node: node, codingPath: codingPath)
    }
}

private struct KeyedEncoder<Key: CodingKey>: KeyedEncodingContainerProtocol {
    let node: Node
    var codingPath: [CodingKey]

    mutating func encodeNil(forKey key: Key) throws { node.child(key.stringValue).content = .value(.null) }

    mutating func encode<T: Encodable>(_ value: T, forKey key: Key) throws {
        try node.child(key.stringValue).store(value, codingPath: codingPath + [key])
    }

    mutating func nestedContainer<NestedKey: CodingKey>(keyedBy keyType: NestedKey.Type, forKey key: Key) -> KeyedEncodingContainer<NestedKey> {
        TreeEncoder(node: node.child(key.stringValue), codingPath: codingPath + [key]).container(keyedBy: keyType)
    }

    mutating func nestedUnkeyedContainer(forKey key: Key) -> UnkeyedEncodingContainer {
        TreeEncoder(node: node.child(key.stringValue), codingPath: codingPath + [key]).unkeyedContainer()
    }

    mutating func superEncoder() -> Encoder { TreeEncoder(node: node.child("super"), codingPath: codingPath) }

    mutating func superEncoder(forKey key: Key) -> Encoder {
        TreeEncoder(node: node.child(key.stringValue), codingPath: codingPath + [key])
    }
}

private struct UnkeyedEncoder: UnkeyedEncodingContainer {
    let node: Node
    var codingPath: [CodingKey]
    var count: Int {
        if case let .array(nodes) = node.content { return nodes.count }
        return 0
    }

    mutating func encodeNil() throws { node.append().content = .value(.null) }

    mutating func encode<T: Encodable>(_ value: T) throws {
        try node.append().store(value, codingPath: codingPath)
    }

    mutating func nestedContainer<NestedKey: CodingKey>(keyedBy keyType: NestedKey.Type) -> KeyedEncodingContainer<NestedKey> {
        TreeEncoder(node: node.append(), codingPath: codingPath).container(keyedBy: keyType)
    }

    mutating func nestedUnkeyedContainer() -> UnkeyedEncodingContainer {
        TreeEncoder(node: node.append(), codingPath: codingPath).unkeyedContainer()
    }

    mutating func superEncoder() -> Encoder { TreeEncoder(node: node.append(), codingPath: codingPath) }
}

private struct SingleEncoder: SingleValueEncodingContainer {
    let node: Node
    var codingPath: [CodingKey]

    mutating func encodeNil() throws { node.content = .value(.null) }

    mutating func encode<T: Encodable>(_ value: T) throws {
        try node.store(value, codingPath: codingPath)
    }
}

// MARK: - Decoding

private func mismatch(_ expected: String, _ value: JSONValue, _ codingPath: [CodingKey]) -> JSONError {
    let path = codingPath.map(\.stringValue).joined(separator: ".")
    return JSONError(problem: "expected \(expected) at '\(path)', found \(value.text.prefix(40))", offset: 0)
}

/// A primitive from `value`, or any other type decoded from it.
private func decodeValue<T: Decodable>(_ type: T.Type, from value: JSONValue, codingPath: [CodingKey]) throws -> T {
    if T.self == String.self {
        guard case let .string(text) = value else { throw mismatch("a string", value, codingPath) }
        return text as! T
    }
    if T.self == Bool.self {
        guard case let .bool(flag) = value else { throw mismatch("true or false", value, codingPath) }
        return flag as! T
    }
    if T.self == Double.self || T.self == Float.self {
        guard case let .number(text) = value, let number = Double(text) else { throw mismatch("a number", value, codingPath) }
        return (T.self == Float.self ? Float(number) as Any : number as Any) as! T
    }
    if let integer = T.self as? any FixedWidthInteger.Type {
        guard case let .number(text) = value else { throw mismatch("an integer", value, codingPath) }
        guard let result = integer.init(text, radix: 10) ?? Double(text).flatMap({ $0 == $0.rounded() ? integer.init(exactly: $0) : nil })
        else { throw mismatch("an integer in range", value, codingPath) }
        return result as! T
    }
    return try T(from: TreeDecoder(value: value, codingPath: codingPath))
}

private struct TreeDecoder: Decoder {
    let value: JSONValue
    var codingPath: [CodingKey]
    var userInfo: [CodingUserInfoKey: Any] { [:] }

    func container<Key: CodingKey>(keyedBy type: Key.Type) throws -> KeyedDecodingContainer<Key> {
        guard case let .object(members) = value else { throw mismatch("an object", value, codingPath) }
        return KeyedDecodingContainer(KeyedDecoder(members: members, codingPath: codingPath))
    }

    func unkeyedContainer() throws -> UnkeyedDecodingContainer {
        guard case let .array(values) = value else { throw mismatch("an array", value, codingPath) }
        return UnkeyedDecoder(values: values, codingPath: codingPath)
    }

    func singleValueContainer() throws -> SingleValueDecodingContainer {
        SingleDecoder(value: value, codingPath: codingPath)
    }
}

private struct KeyedDecoder<Key: CodingKey>: KeyedDecodingContainerProtocol {
    let members: [String: JSONValue]
    var codingPath: [CodingKey]

    var allKeys: [Key] { members.keys.compactMap { Key(stringValue: $0) } }

    func contains(_ key: Key) -> Bool { members[key.stringValue] != nil }

    private func member(_ key: Key) throws -> JSONValue {
        guard let value = members[key.stringValue] else {
            let path = (codingPath + [key]).map(\.stringValue).joined(separator: ".")
            throw JSONError(problem: "missing '\(path)'", offset: 0)
        }
        return value
    }

    func decodeNil(forKey key: Key) throws -> Bool { try member(key) == .null }

    func decode<T: Decodable>(_ type: T.Type, forKey key: Key) throws -> T {
        try decodeValue(type, from: member(key), codingPath: codingPath + [key])
    }

    func nestedContainer<NestedKey: CodingKey>(keyedBy type: NestedKey.Type, forKey key: Key) throws -> KeyedDecodingContainer<NestedKey> {
        try TreeDecoder(value: member(key), codingPath: codingPath + [key]).container(keyedBy: type)
    }

    func nestedUnkeyedContainer(forKey key: Key) throws -> UnkeyedDecodingContainer {
        try TreeDecoder(value: member(key), codingPath: codingPath + [key]).unkeyedContainer()
    }

    func superDecoder() throws -> Decoder { TreeDecoder(value: members["super"] ?? .null, codingPath: codingPath) }

    func superDecoder(forKey key: Key) throws -> Decoder {
        TreeDecoder(value: members[key.stringValue] ?? .null, codingPath: codingPath + [key])
    }
}

private struct UnkeyedDecoder: UnkeyedDecodingContainer {
    let values: [JSONValue]
    var codingPath: [CodingKey]
    var currentIndex = 0
    var count: Int? { values.count }
    var isAtEnd: Bool { currentIndex >= values.count }

    private mutating func next() throws -> JSONValue {
        guard !isAtEnd else { throw JSONError(problem: "array too short at '\(codingPath.map(\.stringValue).joined(separator: "."))'", offset: 0) }
        defer { currentIndex += 1 }
        return values[currentIndex]
    }

    mutating func decodeNil() throws -> Bool {
        guard !isAtEnd, values[currentIndex] == .null else { return false }
        currentIndex += 1
        return true
    }

    mutating func decode<T: Decodable>(_ type: T.Type) throws -> T {
        try decodeValue(type, from: next(), codingPath: codingPath)
    }

    mutating func nestedContainer<NestedKey: CodingKey>(keyedBy type: NestedKey.Type) throws -> KeyedDecodingContainer<NestedKey> {
        try TreeDecoder(value: next(), codingPath: codingPath).container(keyedBy: type)
    }

    mutating func nestedUnkeyedContainer() throws -> UnkeyedDecodingContainer {
        try TreeDecoder(value: next(), codingPath: codingPath).unkeyedContainer()
    }

    mutating func superDecoder() throws -> Decoder { TreeDecoder(value: try next(), codingPath: codingPath) }
}

private struct SingleDecoder: SingleValueDecodingContainer {
    let value: JSONValue
    var codingPath: [CodingKey]

    func decodeNil() -> Bool { value == .null }

    func decode<T: Decodable>(_ type: T.Type) throws -> T {
        try decodeValue(type, from: value, codingPath: codingPath)
    }
}
