import COpenSSL
import Foundation
public import WotsCore

/// The two independent keys derived from a user's secret with scrypt.
///
/// `scrypt(secret, salt, N, r, p)` gives 64 bytes: the first 32 are the encryption key that seals the private keys,
/// the last 32 the authentication key, from which the restore key is made (`restoreKey()`).
/// Never describes its keys.
public struct SecretKeys: Sendable, CustomStringConvertible {
    /// AES-256-GCM key for the sealed private keys (32 bytes). Secret.
    public let encryptionKey: [UInt8]
    /// Key the user proves knowledge of to restore an account (32 bytes). Secret.
    public let authenticationKey: [UInt8]

    /// Runs scrypt on the secret (UTF-8 of its NFC form) with the given salt and cost.
    /// - Throws: `WotsError.invalidKeyDerivation` for parameters out of bounds (salt 16–64 bytes, N a power of two
    ///   from 2^15 to 2^20, r 8–32, p 1–4, at most 256 MiB), `crypto_library` if OpenSSL fails.
    public static func derive(secret: String, parameters: KeyDerivationParameters) throws -> SecretKeys {
        try parameters.checkBounds()
        var password = secret.precomposedStringWithCanonicalMapping.utf8.map { CChar(bitPattern: $0) }
        defer { cleanse(&password) }
        var output = [UInt8](repeating: 0, count: 64)
        defer { cleanse(&output) }
        let result = password.withUnsafeBufferPointer { passwordBuffer in
            parameters.salt.withUnsafeBufferPointer { salt in
                output.withUnsafeMutableBufferPointer { out in
                    EVP_PBE_scrypt(
                        passwordBuffer.baseAddress,
                        passwordBuffer.count,
                        salt.baseAddress,
                        salt.count,
                        parameters.n,
                        UInt64(parameters.r),
                        UInt64(parameters.p),
                        KeyDerivationParameters.maximumMemory + (1 << 20),
                        out.baseAddress,
                        out.count
                    )
                }
            }
        }
        try check(result, "EVP_PBE_scrypt")
        return SecretKeys(encryptionKey: Array(output[..<32]), authenticationKey: Array(output[32...]))
    }

    /// Makes keys from known bytes, for tests and for callers that stored them.
    public init(encryptionKey: [UInt8], authenticationKey: [UInt8]) {
        self.encryptionKey = encryptionKey
        self.authenticationKey = authenticationKey
    }

    public var description: String { "SecretKeys(2 × 256 bits)" }
}

extension KeyDerivationParameters {
    /// Fresh parameters: a random 16-byte salt and the given cost (default N = 2^15, r = 8, p = 1).
    public static func random(
        n: UInt64 = Self.defaultCost.n,
        r: UInt32 = Self.defaultCost.r,
        p: UInt32 = Self.defaultCost.p
    ) -> KeyDerivationParameters {
        KeyDerivationParameters(salt: SecureRandom.bytes(16), n: n, r: r, p: p)
    }
}
