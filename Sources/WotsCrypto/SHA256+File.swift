import COpenSSL
import Foundation
import WotsCore

extension SHA256 {
    /// The SHA-256 digest of the file at `path`, read a mebibyte at a time (backups can be large).
    /// - Throws: `invalid_argument` when the file cannot be read; `crypto_library` when OpenSSL fails.
    package static func hash(fileAt path: String) throws -> [UInt8] {
        guard let handle = FileHandle(forReadingAtPath: path) else {
            throw WotsError(.invalidArgument, "\(path) cannot be read")
        }
        defer { try? handle.close() }
        guard let context = EVP_MD_CTX_new() else { throw WotsError.openSSL("EVP_MD_CTX_new") }
        defer { EVP_MD_CTX_free(context) }
        try check(EVP_DigestInit_ex(context, Algorithms.sha256.pointer, nil), "EVP_DigestInit_ex")
        while true {
            let chunk: Data
            do {
                chunk = try handle.read(upToCount: 1 << 20) ?? Data()
            } catch {
                throw WotsError(.invalidArgument, "\(path) cannot be read: \(error.localizedDescription)")
            }
            if chunk.isEmpty { break }
            try chunk.withUnsafeBytes { bytes in
                try check(EVP_DigestUpdate(context, bytes.baseAddress, bytes.count), "EVP_DigestUpdate")
            }
        }
        var digest = [UInt8](repeating: 0, count: Self.byteCount)
        var length: UInt32 = 0
        try check(EVP_DigestFinal_ex(context, &digest, &length), "EVP_DigestFinal_ex")
        return digest
    }
}
