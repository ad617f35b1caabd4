import COpenSSL
public import WotsCore

/// Bytes from OpenSSL's CSPRNG (`RAND_bytes`).
public enum SecureRandom {
    /// Returns `count` random bytes.
    ///
    /// A CSPRNG that cannot produce bytes leaves nothing safe to do, so this stops the process rather than throw.
    public static func bytes(_ count: Int) -> [UInt8] {
        precondition(count >= 0 && count <= Int(Int32.max), "random byte count out of range")
        guard count > 0 else { return [] }
        var bytes = [UInt8](repeating: 0, count: count)
        let result = bytes.withUnsafeMutableBufferPointer { RAND_bytes($0.baseAddress, Int32($0.count)) }
        precondition(result == 1, "RAND_bytes failed: \(OpenSSLError.drain())")
        return bytes
    }
}

extension Token {
    /// A fresh token: 128 bits from `SecureRandom`.
    public static func random() -> Token {
        // 16 bytes always make a valid token.
        try! Token(bytes: SecureRandom.bytes(16))
    }
}
