package enum Hex {
    /// The lowercase hex digits, by value.
    package static let digits = Array("0123456789abcdef".utf8)

    package static func encode(_ bytes: some Sequence<UInt8>) -> String {
        var output: [UInt8] = []
        Self.append(bytes, to: &output)
        return String(decoding: output, as: UTF8.self)
    }

    /// Appends the lowercase hex digits of `bytes` to a UTF-8 buffer.
    package static func append(_ bytes: some Sequence<UInt8>, to output: inout [UInt8]) {
        output.reserveCapacity(output.count + bytes.underestimatedCount * 2)
        for byte in bytes {
            output.append(digits[Int(byte >> 4)])
            output.append(digits[Int(byte & 0x0F)])
        }
    }

    /// Decodes lowercase or uppercase hex; nil for odd lengths or other characters.
    package static func decode(_ text: String) -> [UInt8]? {
        Self.decode(digits: text.utf8)
    }

    /// Decodes hex digits given as their UTF-8 bytes; nil for an odd count or any other byte.
    package static func decode(digits: some Sequence<UInt8>) -> [UInt8]? {
        var output: [UInt8] = []
        output.reserveCapacity(digits.underestimatedCount / 2)
        var high: UInt8?
        for digit in digits {
            guard let value = Self.value(digit) else { return nil }
            if let first = high {
                output.append(first << 4 | value)
                high = nil
            } else {
                high = value
            }
        }
        return high == nil ? output : nil
    }

    /// The value of one hex digit, either case; nil for any other character.
    package static func value(_ character: UInt8) -> UInt8? {
        switch character {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): character - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): character - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): character - UInt8(ascii: "A") + 10
        default: nil
        }
    }
}
