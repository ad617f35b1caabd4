/// Standard base64 (RFC 4648, section 4) with padding, written straight into a byte buffer.
package enum Base64Text {
    private static let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/".utf8)

    package static func append(_ data: [UInt8], to output: inout [UInt8]) {
        output.reserveCapacity(output.count + (data.count + 2) / 3 * 4)
        let alphabet = Self.alphabet
        var index = 0
        while index + 3 <= data.count {
            let group = UInt32(data[index]) << 16 | UInt32(data[index + 1]) << 8 | UInt32(data[index + 2])
            output.append(alphabet[Int(group >> 18 & 63)])
            output.append(alphabet[Int(group >> 12 & 63)])
            output.append(alphabet[Int(group >> 6 & 63)])
            output.append(alphabet[Int(group & 63)])
            index += 3
        }
        switch data.count - index {
        case 1:
            let group = UInt32(data[index]) << 16
            output.append(alphabet[Int(group >> 18 & 63)])
            output.append(alphabet[Int(group >> 12 & 63)])
            output.append(contentsOf: [UInt8(ascii: "="), UInt8(ascii: "=")])
        case 2:
            let group = UInt32(data[index]) << 16 | UInt32(data[index + 1]) << 8
            output.append(alphabet[Int(group >> 18 & 63)])
            output.append(alphabet[Int(group >> 12 & 63)])
            output.append(alphabet[Int(group >> 6 & 63)])
            output.append(UInt8(ascii: "="))
        default:
            break
        }
    }

    /// Decodes standard base64 in its one canonical spelling: padded to a multiple of 4, no whitespace, unused bits
    /// zero. Nil for anything else, which callers leave to Foundation's decoder.
    package static func decode(_ text: ArraySlice<UInt8>) -> [UInt8]? {
        guard text.count % 4 == 0 else { return nil }
        var padding = 0
        if text.last == UInt8(ascii: "=") {
            padding = text[text.endIndex - 2] == UInt8(ascii: "=") ? 2 : 1
        }
        var output: [UInt8] = []
        output.reserveCapacity(text.count / 4 * 3)
        var group: UInt32 = 0
        var digits = 0
        for byte in text[text.startIndex..<text.endIndex - padding] {
            guard let value = Self.value(byte) else { return nil }
            group = group << 6 | UInt32(value)
            digits += 1
            if digits == 4 {
                output.append(UInt8(truncatingIfNeeded: group >> 16))
                output.append(UInt8(truncatingIfNeeded: group >> 8))
                output.append(UInt8(truncatingIfNeeded: group))
                group = 0
                digits = 0
            }
        }
        switch digits {
        case 0: break
        case 2:
            guard group & 0x0F == 0 else { return nil }
            output.append(UInt8(truncatingIfNeeded: group >> 4))
        case 3:
            guard group & 0x03 == 0 else { return nil }
            output.append(UInt8(truncatingIfNeeded: group >> 10))
            output.append(UInt8(truncatingIfNeeded: group >> 2))
        default: return nil
        }
        return output
    }

    /// The value of one base64 digit; nil for any other byte, `=` included.
    private static func value(_ byte: UInt8) -> UInt8? {
        switch byte {
        case UInt8(ascii: "A")...UInt8(ascii: "Z"): byte - UInt8(ascii: "A")
        case UInt8(ascii: "a")...UInt8(ascii: "z"): byte - UInt8(ascii: "a") + 26
        case UInt8(ascii: "0")...UInt8(ascii: "9"): byte - UInt8(ascii: "0") + 52
        case UInt8(ascii: "+"): 62
        case UInt8(ascii: "/"): 63
        default: nil
        }
    }
}
