import COpenSSL

/// HMAC-SHA-256 through OpenSSL's `EVP_Q_mac`.
public enum HMACSHA256 {
    public static let byteCount = 32

    /// The 32-byte HMAC-SHA-256 of `message` under `key`.
    public static func authenticationCode(key: [UInt8], message: [UInt8]) -> [UInt8] {
        var code = [UInt8](repeating: 0, count: Self.byteCount)
        var length = 0
        let result = key.withUnsafeBytes { keyBytes in
            message.withUnsafeBufferPointer { input in
                code.withUnsafeMutableBufferPointer { output in
                    EVP_Q_mac(
                        nil,
                        "HMAC",
                        nil,
                        "SHA256",
                        nil,
                        keyBytes.baseAddress,
                        keyBytes.count,
                        input.baseAddress,
                        input.count,
                        output.baseAddress,
                        output.count,
                        &length
                    )
                }
            }
        }
        // A MAC over a buffer in memory only fails if OpenSSL is broken beyond repair.
        precondition(result != nil && length == Self.byteCount, "EVP_Q_mac failed: \(OpenSSLError.drain())")
        return code
    }
}
