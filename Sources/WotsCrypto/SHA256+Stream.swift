import COpenSSL
import WotsCore

extension SHA256 {
    /// A digest fed piece by piece; used by one task at a time.
    final class Stream {
        private let context: OpaquePointer

        init() throws {
            guard let context = EVP_MD_CTX_new() else { throw WotsError.openSSL("EVP_MD_CTX_new") }
            self.context = context
            try check(EVP_DigestInit_ex(context, Algorithms.sha256.pointer, nil), "EVP_DigestInit_ex")
        }

        deinit { EVP_MD_CTX_free(self.context) }

        func update(_ bytes: [UInt8]) throws {
            try check(EVP_DigestUpdate(self.context, bytes, bytes.count), "EVP_DigestUpdate")
        }

        func finish() throws -> [UInt8] {
            var digest = [UInt8](repeating: 0, count: SHA256.byteCount)
            var length: UInt32 = 0
            try check(EVP_DigestFinal_ex(self.context, &digest, &length), "EVP_DigestFinal_ex")
            return digest
        }
    }
}
