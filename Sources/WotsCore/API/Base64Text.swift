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
}
