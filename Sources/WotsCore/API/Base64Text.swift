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
        let digitCount = text.count - padding
        let outputCount = digitCount * 3 / 4
        let values = Self.values
        return text.withUnsafeBufferPointer { input in
            values.withUnsafeBufferPointer { values in
                var isCanonical = true
                let output = [UInt8](unsafeUninitializedCapacity: outputCount) { output, initialized in
                    var written = 0
                    var read = 0
                    var seen: UInt8 = 0
                    while read + 4 <= digitCount {
                        let (a, b, c, d) = (
                            values[Int(input[read])], values[Int(input[read + 1])], values[Int(input[read + 2])],
                            values[Int(input[read + 3])]
                        )
                        seen |= a | b | c | d
                        let group = UInt32(a) << 18 | UInt32(b) << 12 | UInt32(c) << 6 | UInt32(d)
                        output[written] = UInt8(truncatingIfNeeded: group >> 16)
                        output[written + 1] = UInt8(truncatingIfNeeded: group >> 8)
                        output[written + 2] = UInt8(truncatingIfNeeded: group)
                        written += 3
                        read += 4
                    }
                    var group: UInt32 = 0
                    for index in read..<digitCount {
                        let value = values[Int(input[index])]
                        seen |= value
                        group = group << 6 | UInt32(value)
                    }
                    switch digitCount - read {
                    case 2:
                        isCanonical = group & 0x0F == 0
                        output[written] = UInt8(truncatingIfNeeded: group >> 4)
                    case 3:
                        isCanonical = group & 0x03 == 0
                        output[written] = UInt8(truncatingIfNeeded: group >> 10)
                        output[written + 1] = UInt8(truncatingIfNeeded: group >> 2)
                    default:
                        break
                    }
                    isCanonical = isCanonical && seen & Self.notADigit == 0
                    initialized = outputCount
                }
                return isCanonical ? output : nil
            }
        }
    }

    /// Set in `values` for a byte that is no base64 digit: a bit no digit's value has.
    private static let notADigit: UInt8 = 0x40

    /// Each byte's value as a base64 digit (its place in `alphabet`), or `notADigit` for any other byte, `=` included.
    private static let values: [UInt8] = {
        var values = [UInt8](repeating: notADigit, count: 256)
        for (value, digit) in alphabet.enumerated() { values[Int(digit)] = UInt8(value) }
        return values
    }()
}
