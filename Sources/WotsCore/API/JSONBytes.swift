package import Foundation

/// Appends JSON to a byte buffer by hand, spelled exactly as `WireCoding.makeEncoder()` spells it (keys in the
/// caller's order, which must be sorted; slashes unescaped): for the relay's hottest frames, where Foundation's encoder
/// was a tenth of the relay's CPU per message.
package struct JSONBytes {
    package private(set) var bytes: [UInt8]

    package init(capacity: Int) {
        self.bytes = []
        self.bytes.reserveCapacity(capacity)
    }

    /// Whether JSON writes `text` between quotes as it is: printable ASCII other than `"` and `\`. Callers check
    /// strings they do not control first and leave any other to Foundation's encoder.
    package static func isPlain(_ text: String) -> Bool {
        text.utf8.allSatisfy { $0 >= 0x20 && $0 < 0x7F && $0 != UInt8(ascii: "\"") && $0 != UInt8(ascii: "\\") }
    }

    package mutating func raw(_ text: StaticString) {
        text.withUTF8Buffer { self.bytes.append(contentsOf: $0) }
    }

    /// A string that `isPlain`, in quotes.
    package mutating func plainString(_ text: String) {
        self.bytes.append(UInt8(ascii: "\""))
        self.bytes.append(contentsOf: text.utf8)
        self.bytes.append(UInt8(ascii: "\""))
    }

    /// A date as `WireCoding.format` spells it, in quotes; written straight into the buffer for years 1970–9999.
    package mutating func date(_ date: Date) {
        self.bytes.append(UInt8(ascii: "\""))
        if !ISO8601Milliseconds.append(Int64(exactly: WireCoding.milliseconds(of: date)) ?? -1, to: &self.bytes) {
            self.bytes.append(contentsOf: WireCoding.format(date).utf8)
        }
        self.bytes.append(UInt8(ascii: "\""))
    }

    package mutating func integer(_ value: some BinaryInteger) {
        self.bytes.append(contentsOf: String(value).utf8)
    }

    /// A token's base32 spelling, in quotes.
    package mutating func token(_ token: Token) {
        self.bytes.append(UInt8(ascii: "\""))
        Base32.append(token.bytes, to: &self.bytes)
        self.bytes.append(UInt8(ascii: "\""))
    }

    /// A fingerprint's 64 hex digits, in quotes.
    package mutating func fingerprint(_ fingerprint: Fingerprint) {
        self.bytes.append(UInt8(ascii: "\""))
        Hex.append(fingerprint.bytes, to: &self.bytes)
        self.bytes.append(UInt8(ascii: "\""))
    }

    /// Standard base64 with padding, in quotes.
    package mutating func base64(_ data: [UInt8]) {
        self.bytes.append(UInt8(ascii: "\""))
        Base64Text.append(data, to: &self.bytes)
        self.bytes.append(UInt8(ascii: "\""))
    }
}
