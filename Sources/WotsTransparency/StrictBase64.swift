import Foundation

/// Standard base64 (RFC 4648 section 4) with padding, read strictly: one spelling per byte string.
enum StrictBase64 {
    static func encode(_ bytes: [UInt8]) -> String { Data(bytes).base64EncodedString() }

    /// The bytes, or nil unless `text` is exactly what `encode` would write for them (no whitespace, padding
    /// present, unused bits zero).
    static func decode(_ text: some StringProtocol) -> [UInt8]? {
        guard text.utf8.count % 4 == 0, let data = Data(base64Encoded: String(text)) else { return nil }
        let bytes = [UInt8](data)
        guard Self.encode(bytes).utf8.elementsEqual(text.utf8) else { return nil }
        return bytes
    }
}
