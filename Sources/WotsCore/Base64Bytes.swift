import Foundation

extension KeyedDecodingContainer {
    /// Decodes standard base64 into bytes, naming the field when the text is not base64.
    package func decodeBase64(forKey key: Key) throws -> [UInt8] {
        let text = try self.decode(String.self, forKey: key)
        guard let data = Data(base64Encoded: text) else {
            throw DecodingError.dataCorruptedError(
                forKey: key,
                in: self,
                debugDescription: "\(key.stringValue) is not standard base64"
            )
        }
        return Array(data)
    }
}

extension KeyedEncodingContainer {
    package mutating func encodeBase64(_ bytes: [UInt8], forKey key: Key) throws {
        try self.encode(Data(bytes).base64EncodedString(), forKey: key)
    }
}

extension Array where Element == UInt8 {
    /// Standard base64 with padding.
    package var base64: String { Data(self).base64EncodedString() }
}
