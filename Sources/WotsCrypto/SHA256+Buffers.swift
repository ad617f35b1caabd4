import COpenSSL

extension SHA256 {
    /// Writes the SHA-256 digest of `input` into the first 32 bytes of `digest`, allocating nothing in Swift.
    ///
    /// For Merkle trees, which hash millions of 65-byte nodes: the array-returning `hash(_:)` costs two heap
    /// allocations per node.
    package static func hash(_ input: UnsafeRawBufferPointer, into digest: UnsafeMutableRawBufferPointer) {
        precondition(digest.count >= Self.byteCount, "a SHA-256 digest needs 32 bytes")
        var length: UInt32 = 0
        let result = EVP_Digest(
            input.baseAddress,
            input.count,
            digest.baseAddress?.assumingMemoryBound(to: UInt8.self),
            &length,
            Algorithms.sha256.pointer,
            nil
        )
        // Hashing a buffer in memory only fails if OpenSSL is broken beyond repair.
        precondition(result == 1 && Int(length) == Self.byteCount, "EVP_Digest failed: \(OpenSSLError.drain())")
    }
}
