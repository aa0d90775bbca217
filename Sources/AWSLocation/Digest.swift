import COpenSSL

/// SHA-256 and HMAC-SHA256 through libcrypto; no hand-written cryptography.
enum Digest {
    static func sha256(_ data: [UInt8]) -> [UInt8] {
        OpenSSL.required()
        var digest = [UInt8](repeating: 0, count: 32)
        let ok = data.withUnsafeBytes { gpstrackd_sha256($0.baseAddress, $0.count, &digest) }
        precondition(ok == 1, "libcrypto SHA-256 failed")
        return digest
    }

    static func hmacSHA256(key: [UInt8], _ data: [UInt8]) -> [UInt8] {
        OpenSSL.required()
        var mac = [UInt8](repeating: 0, count: 32)
        let ok = key.withUnsafeBytes { k in
            data.withUnsafeBytes { d in gpstrackd_hmac_sha256(k.baseAddress, Int32(k.count), d.baseAddress, d.count, &mac) }
        }
        precondition(ok == 1, "libcrypto HMAC-SHA256 failed")
        return mac
    }

    static func hex(_ bytes: [UInt8]) -> String {
        let digits = Array("0123456789abcdef".utf8)
        var out = [UInt8]()
        out.reserveCapacity(bytes.count * 2)
        for byte in bytes {
            out.append(digits[Int(byte >> 4)])
            out.append(digits[Int(byte & 0x0f)])
        }
        return String(decoding: out, as: UTF8.self)
    }

    /// Bytes from lowercase hex, as `hex` writes them; nil for anything else.
    static func bytes(hex: String) -> [UInt8]? {
        let digits = Array(hex.utf8)
        guard digits.count % 2 == 0 else { return nil }
        func value(_ digit: UInt8) -> UInt8? {
            switch digit {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): return digit - UInt8(ascii: "0")
            case UInt8(ascii: "a")...UInt8(ascii: "f"): return digit - UInt8(ascii: "a") + 10
            default: return nil
            }
        }
        var bytes: [UInt8] = []
        bytes.reserveCapacity(digits.count / 2)
        for index in stride(from: 0, to: digits.count, by: 2) {
            guard let high = value(digits[index]), let low = value(digits[index + 1]) else { return nil }
            bytes.append(high << 4 | low)
        }
        return bytes
    }
}
