/// RFC 4648 base32 in lowercase without padding, the spelling of tokens.
package enum Base32 {
    static let alphabet = Array("abcdefghijklmnopqrstuvwxyz234567".utf8)

    package static func encode(_ bytes: [UInt8]) -> String {
        var output: [UInt8] = []
        Self.append(bytes, to: &output)
        return String(decoding: output, as: UTF8.self)
    }

    /// Appends the base32 spelling of `bytes` to a UTF-8 buffer.
    package static func append(_ bytes: [UInt8], to output: inout [UInt8]) {
        output.reserveCapacity(output.count + (bytes.count * 8 + 4) / 5)
        var buffer: UInt32 = 0
        var bits = 0
        for byte in bytes {
            buffer = (buffer << 8) | UInt32(byte)
            bits += 8
            while bits >= 5 {
                bits -= 5
                output.append(alphabet[Int((buffer >> UInt32(bits)) & 0x1F)])
            }
        }
        if bits > 0 {
            output.append(alphabet[Int((buffer << UInt32(5 - bits)) & 0x1F)])
        }
    }

    /// Decodes canonical lowercase base32; returns nil for any other spelling (unused trailing bits must be zero).
    package static func decode(_ text: String) -> [UInt8]? {
        Self.decode(utf8: text.utf8)
    }

    /// `decode(_:)` from the text's UTF-8 bytes.
    package static func decode(utf8 text: some Sequence<UInt8>) -> [UInt8]? {
        var output: [UInt8] = []
        output.reserveCapacity(text.underestimatedCount * 5 / 8)
        var buffer: UInt32 = 0
        var bits = 0
        for character in text {
            guard let index = Self.value(character) else { return nil }
            buffer = (buffer << 5) | UInt32(index)
            bits += 5
            if bits >= 8 {
                bits -= 8
                output.append(UInt8((buffer >> UInt32(bits)) & 0xFF))
            }
        }
        guard bits < 5, buffer & ((1 << UInt32(bits)) - 1) == 0 else { return nil }
        return output
    }

    /// The value of one lowercase base32 digit (its place in `alphabet`); nil for any other byte.
    private static func value(_ character: UInt8) -> UInt8? {
        let value = values[Int(character)]
        return value < alphabet.count ? value : nil
    }

    /// Each byte's place in `alphabet`, or 0xFF for a byte that is not in it.
    private static let values: [UInt8] = {
        var values = [UInt8](repeating: 0xFF, count: 256)
        for (value, digit) in alphabet.enumerated() { values[Int(digit)] = UInt8(value) }
        return values
    }()
}
