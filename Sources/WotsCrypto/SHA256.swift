import COpenSSL

/// SHA-256 through OpenSSL's `EVP_Digest`.
public enum SHA256 {
    public static let byteCount = 32

    /// The 32-byte SHA-256 digest of `bytes`.
    public static func hash(_ bytes: [UInt8]) -> [UInt8] {
        Digest.compute(bytes, algorithm: Algorithms.sha256.pointer, size: Self.byteCount)
    }
}

/// Whole-message digests for the few places that need another algorithm (the safety number uses SHA-512).
enum Digest {
    static func sha512(_ bytes: [UInt8]) -> [UInt8] { compute(bytes, algorithm: Algorithms.sha512.pointer, size: 64) }

    static func compute(_ bytes: [UInt8], algorithm: OpaquePointer?, size: Int) -> [UInt8] {
        var digest = [UInt8](repeating: 0, count: size)
        var length: UInt32 = 0
        let result = bytes.withUnsafeBufferPointer { input in
            digest.withUnsafeMutableBufferPointer { output in
                EVP_Digest(input.baseAddress, input.count, output.baseAddress, &length, algorithm, nil)
            }
        }
        // Hashing a buffer in memory only fails if OpenSSL is broken beyond repair.
        precondition(result == 1 && Int(length) == size, "EVP_Digest failed: \(OpenSSLError.drain())")
        return digest
    }
}

/// Compares two byte strings in time that depends only on their lengths (`CRYPTO_memcmp`).
public func constantTimeEquals(_ lhs: [UInt8], _ rhs: [UInt8]) -> Bool {
    guard lhs.count == rhs.count else { return false }
    guard !lhs.isEmpty else { return true }
    return lhs.withUnsafeBytes { left in
        rhs.withUnsafeBytes { right in CRYPTO_memcmp(left.baseAddress, right.baseAddress, left.count) == 0 }
    }
}

/// Overwrites a buffer that held key material (`OPENSSL_cleanse`), so the compiler cannot skip it.
func cleanse(_ bytes: inout [CChar]) {
    bytes.withUnsafeMutableBytes { buffer in
        if let base = buffer.baseAddress { OPENSSL_cleanse(base, buffer.count) }
    }
}

/// Overwrites a buffer that held key material (`OPENSSL_cleanse`), so the compiler cannot skip it.
package func cleanse(_ bytes: inout [UInt8]) {
    bytes.withUnsafeMutableBytes { buffer in
        if let base = buffer.baseAddress { OPENSSL_cleanse(base, buffer.count) }
    }
}
