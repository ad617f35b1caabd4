import COpenSSL

/// Algorithms fetched from OpenSSL's default provider once, for the whole process.
///
/// OpenSSL 3.0 looks an algorithm up by name on every implicit use (`EVP_sha256()`, `EVP_aes_256_gcm()`), and turning
/// an `EVP_MD` back into a name walks the whole name map; at tens of thousands of envelopes per second that shows.
/// Fetching once and passing digests by name avoids both.
enum Algorithms {
    static let sha256Name = "SHA256"

    static let sha256 = Fetched(EVP_MD_fetch(nil, "SHA256", nil), "EVP_MD_fetch(SHA256)")
    static let sha512 = Fetched(EVP_MD_fetch(nil, "SHA512", nil), "EVP_MD_fetch(SHA512)")
    static let aes256GCM = Fetched(EVP_CIPHER_fetch(nil, "AES-256-GCM", nil), "EVP_CIPHER_fetch(AES-256-GCM)")

    // @unchecked: a fetched EVP_MD / EVP_CIPHER is immutable and reference-counted by OpenSSL; OpenSSL 3 documents
    // fetched algorithms as safe to share between threads. It lives as long as the process.
    final class Fetched: @unchecked Sendable {
        let pointer: OpaquePointer
        init(_ pointer: OpaquePointer?, _ what: String) {
            // Without SHA-256 or AES-GCM in the default provider nothing in Wots can work.
            guard let pointer else { fatalError("\(what) failed: \(OpenSSLError.drain())") }
            self.pointer = pointer
        }
    }
}
