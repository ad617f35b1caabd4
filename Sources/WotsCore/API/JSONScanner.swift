/// Reads the plain subset of JSON that well-behaved clients send — objects, strings without escapes, non-negative
/// integers, booleans — and gives up (nil or false) on anything else, so the caller can hand that input to
/// Foundation's decoder, which then either reads it or says precisely what is wrong. Never accepts what JSON does not.
package struct JSONScanner {
    private let bytes: [UInt8]
    private var index = 0

    package init(_ bytes: [UInt8]) {
        self.bytes = bytes
    }

    /// Whether only whitespace is left.
    package mutating func isAtEnd() -> Bool {
        self.skipWhitespace()
        return self.index == self.bytes.count
    }

    /// Reads `{ "key": value, … }`, calling `member` with each key positioned at its value; `member` must read the
    /// value and return true. False when the object is not plain JSON or `member` returned false.
    package mutating func object(_ member: (String, inout JSONScanner) -> Bool) -> Bool {
        guard self.take(UInt8(ascii: "{")) else { return false }
        if self.take(UInt8(ascii: "}")) { return true }
        while true {
            guard let key = self.string(), self.take(UInt8(ascii: ":")), member(key, &self) else { return false }
            if self.take(UInt8(ascii: "}")) { return true }
            guard self.take(UInt8(ascii: ",")) else { return false }
        }
    }

    /// Reads `[ element, … ]`, calling `element` positioned at each; `element` must read it and return true. False when
    /// the array is not plain JSON or `element` returned false.
    package mutating func array(_ element: (inout JSONScanner) -> Bool) -> Bool {
        guard self.take(UInt8(ascii: "[")) else { return false }
        if self.take(UInt8(ascii: "]")) { return true }
        while true {
            guard element(&self) else { return false }
            if self.take(UInt8(ascii: "]")) { return true }
            guard self.take(UInt8(ascii: ",")) else { return false }
        }
    }

    /// A string with no escape sequence and no control character.
    package mutating func string() -> String? {
        self.stringBytes().flatMap { String(validating: $0, as: UTF8.self) }
    }

    /// The bytes between the quotes of a string with no escape sequence and no control character, not yet checked to
    /// be UTF-8: for values the caller decodes from a subset of ASCII anyway, without building a `String` first.
    package mutating func stringBytes() -> ArraySlice<UInt8>? {
        guard self.take(UInt8(ascii: "\"")) else { return nil }
        let start = self.index
        while self.index < self.bytes.count {
            let byte = self.bytes[self.index]
            if byte == UInt8(ascii: "\"") {
                defer { self.index += 1 }
                return self.bytes[start..<self.index]
            }
            guard byte >= 0x20, byte != UInt8(ascii: "\\") else { return nil }
            self.index += 1
        }
        return nil
    }

    /// A non-negative integer written as JSON writes it: no sign, no leading zero, no fraction or exponent.
    package mutating func unsignedInteger() -> UInt64? {
        self.skipWhitespace()
        let start = self.index
        var value: UInt64 = 0
        while self.index < self.bytes.count, let digit = Self.digit(self.bytes[self.index]) {
            let (times10, overflow) = value.multipliedReportingOverflow(by: 10)
            let (sum, carry) = times10.addingReportingOverflow(UInt64(digit))
            guard !overflow, !carry else { return nil }
            value = sum
            self.index += 1
        }
        let length = self.index - start
        guard length > 0, length == 1 || self.bytes[start] != UInt8(ascii: "0") else { return nil }
        if self.index < self.bytes.count {
            let next = self.bytes[self.index]
            guard next != UInt8(ascii: "."), next != UInt8(ascii: "e"), next != UInt8(ascii: "E") else { return nil }
        }
        return value
    }

    package mutating func bool() -> Bool? {
        if self.take(literal: Array("true".utf8)) { return true }
        if self.take(literal: Array("false".utf8)) { return false }
        return nil
    }

    private mutating func take(_ byte: UInt8) -> Bool {
        self.skipWhitespace()
        guard self.index < self.bytes.count, self.bytes[self.index] == byte else { return false }
        self.index += 1
        return true
    }

    private mutating func take(literal: [UInt8]) -> Bool {
        self.skipWhitespace()
        guard self.bytes.count - self.index >= literal.count,
            self.bytes[self.index..<self.index + literal.count].elementsEqual(literal)
        else { return false }
        self.index += literal.count
        return true
    }

    private mutating func skipWhitespace() {
        while self.index < self.bytes.count {
            switch self.bytes[self.index] {
            case 0x20, 0x09, 0x0A, 0x0D: self.index += 1
            default: return
            }
        }
    }

    private static func digit(_ byte: UInt8) -> UInt8? {
        byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9") ? byte - UInt8(ascii: "0") : nil
    }
}
