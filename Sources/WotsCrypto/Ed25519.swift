import COpenSSL
import WotsCore

/// An Ed25519 private key (RFC 8032) held by OpenSSL, with its public key.
///
/// Signing is deterministic: one key signs one message to the same 64 bytes every time. Describes itself without
/// key material.
public struct Ed25519PrivateKey: Sendable, CustomStringConvertible {
    /// Length of a raw private key (the RFC 8032 seed).
    public static let seedByteCount = 32
    /// Length of a signature.
    public static let signatureByteCount = 64

    let backing: Backing
    /// The matching public key.
    public let publicKey: Ed25519PublicKey

    // @unchecked: the EVP_PKEY is never mutated after init; OpenSSL 3 allows concurrent use of a const key.
    final class Backing: @unchecked Sendable {
        let pointer: OpaquePointer
        init(takingOwnershipOf pointer: OpaquePointer) { self.pointer = pointer }
        // EVP_PKEY_free overwrites the private key bytes (OPENSSL_secure_clear_free) before releasing them.
        deinit { EVP_PKEY_free(self.pointer) }
    }

    private init(takingOwnershipOf pointer: OpaquePointer) throws {
        let backing = Backing(takingOwnershipOf: pointer)
        var raw = [UInt8](repeating: 0, count: Ed25519PublicKey.byteCount)
        var length = raw.count
        try check(EVP_PKEY_get_raw_public_key(pointer, &raw, &length), "EVP_PKEY_get_raw_public_key(ED25519)")
        guard length == Ed25519PublicKey.byteCount else {
            throw WotsError(.cryptoLibrary, "Ed25519 public key came out as \(length) bytes")
        }
        self.backing = backing
        self.publicKey = try Ed25519PublicKey(rawRepresentation: raw)
    }

    /// Generates a fresh key from OpenSSL's CSPRNG.
    /// - Throws: `crypto_library` if OpenSSL fails.
    public static func generate() throws -> Ed25519PrivateKey {
        guard let context = EVP_PKEY_CTX_new_from_name(nil, "ED25519", nil) else {
            throw WotsError.openSSL("EVP_PKEY_CTX_new_from_name(ED25519)")
        }
        defer { EVP_PKEY_CTX_free(context) }
        try check(EVP_PKEY_keygen_init(context), "EVP_PKEY_keygen_init(ED25519)")
        var key: OpaquePointer? = nil
        try check(EVP_PKEY_keygen(context, &key), "EVP_PKEY_keygen(ED25519)")
        guard let key else { throw WotsError.openSSL("EVP_PKEY_keygen(ED25519)") }
        return try Ed25519PrivateKey(takingOwnershipOf: key)
    }

    /// Reads a raw 32-byte private key (the RFC 8032 seed). Secret: overwrite your copy once the key is made.
    /// - Throws: `WotsError.invalidKey` unless `seed` is 32 bytes; `crypto_library` if OpenSSL fails.
    public init(seed: [UInt8]) throws {
        guard seed.count == Self.seedByteCount else {
            throw WotsError(.invalidKey, "Ed25519 seed is \(seed.count) bytes (must be 32)")
        }
        let key = seed.withUnsafeBufferPointer { buffer in
            EVP_PKEY_new_raw_private_key_ex(nil, "ED25519", nil, buffer.baseAddress, buffer.count)
        }
        guard let key else { throw WotsError.openSSL("EVP_PKEY_new_raw_private_key_ex(ED25519)") }
        try self.init(takingOwnershipOf: key)
    }

    /// Lends the raw 32-byte seed to `body`, then overwrites it (`OPENSSL_cleanse`).
    ///
    /// Secret: whatever `body` keeps of it (to seal it, for example) the caller must protect.
    /// - Throws: `crypto_library` if OpenSSL cannot export the key, or what `body` throws.
    public func withSeed<Result>(_ body: ([UInt8]) throws -> Result) throws -> Result {
        var seed = [UInt8](repeating: 0, count: Self.seedByteCount)
        defer { cleanse(&seed) }
        var length = seed.count
        try check(EVP_PKEY_get_raw_private_key(self.backing.pointer, &seed, &length), "EVP_PKEY_get_raw_private_key")
        guard length == Self.seedByteCount else {
            throw WotsError(.cryptoLibrary, "Ed25519 private key came out as \(length) bytes")
        }
        return try body(seed)
    }

    /// The 64-byte Ed25519 signature over exactly `message` (pure Ed25519: no pre-hash, no context).
    /// - Throws: `crypto_library` if OpenSSL fails.
    public func signature(for message: [UInt8]) throws -> [UInt8] {
        guard let context = EVP_MD_CTX_new() else { throw WotsError.openSSL("EVP_MD_CTX_new") }
        defer { EVP_MD_CTX_free(context) }
        // Ed25519 hashes internally: no digest is named and only the one-shot EVP_DigestSign is allowed.
        try check(EVP_DigestSignInit(context, nil, nil, nil, self.backing.pointer), "EVP_DigestSignInit(ED25519)")
        var signature = [UInt8](repeating: 0, count: Self.signatureByteCount)
        var length = signature.count
        try check(
            EVP_DigestSign(context, &signature, &length, message, message.count),
            "EVP_DigestSign(ED25519)"
        )
        guard length == Self.signatureByteCount else {
            throw WotsError(.cryptoLibrary, "Ed25519 signature came out as \(length) bytes")
        }
        return signature
    }

    public var description: String { "Ed25519PrivateKey(public \(self.publicKey.hexPrefix)…)" }
}

/// An Ed25519 public key (RFC 8032): 32 raw bytes, parsed once by OpenSSL.
public struct Ed25519PublicKey: Sendable, Hashable, CustomStringConvertible {
    /// Length of a raw public key.
    public static let byteCount = 32

    let backing: Backing
    /// The 32-byte encoding of RFC 8032, section 5.1.2.
    public let rawRepresentation: [UInt8]

    // @unchecked: the EVP_PKEY is never mutated after init; OpenSSL 3 allows concurrent use of a const key.
    final class Backing: @unchecked Sendable {
        let pointer: OpaquePointer
        init(takingOwnershipOf pointer: OpaquePointer) { self.pointer = pointer }
        deinit { EVP_PKEY_free(self.pointer) }
    }

    /// Reads a raw 32-byte public key.
    /// - Throws: `WotsError.invalidKey` unless it is 32 bytes that OpenSSL accepts as an Ed25519 key.
    public init(rawRepresentation raw: [UInt8]) throws {
        guard raw.count == Self.byteCount else {
            throw WotsError(.invalidKey, "Ed25519 public key is \(raw.count) bytes (must be 32)")
        }
        let key = raw.withUnsafeBufferPointer { buffer in
            EVP_PKEY_new_raw_public_key_ex(nil, "ED25519", nil, buffer.baseAddress, buffer.count)
        }
        guard let key else {
            OpenSSLError.clear()
            throw WotsError(.invalidKey, "OpenSSL refuses these 32 bytes as an Ed25519 public key")
        }
        self.backing = Backing(takingOwnershipOf: key)
        self.rawRepresentation = raw
    }

    /// Whether `signature` is this key's Ed25519 signature over exactly `message`.
    public func isValidSignature(_ signature: [UInt8], for message: [UInt8]) -> Bool {
        guard signature.count == Ed25519PrivateKey.signatureByteCount else { return false }
        guard let context = EVP_MD_CTX_new() else {
            OpenSSLError.clear()
            return false
        }
        defer { EVP_MD_CTX_free(context) }
        guard EVP_DigestVerifyInit(context, nil, nil, nil, self.backing.pointer) == 1 else {
            OpenSSLError.clear()
            return false
        }
        // 0 is a signature that does not verify, below 0 an error; both leave errors queued for the next caller.
        guard EVP_DigestVerify(context, signature, signature.count, message, message.count) == 1 else {
            OpenSSLError.clear()
            return false
        }
        return true
    }

    var hexPrefix: String {
        let digits = Array("0123456789abcdef".utf8)
        let bytes = self.rawRepresentation.prefix(4).flatMap { [digits[Int($0 >> 4)], digits[Int($0 & 0x0F)]] }
        return String(decoding: bytes, as: UTF8.self)
    }

    public var description: String { "Ed25519PublicKey(\(self.hexPrefix)…)" }

    public static func == (lhs: Ed25519PublicKey, rhs: Ed25519PublicKey) -> Bool {
        lhs.rawRepresentation == rhs.rawRepresentation
    }
    public func hash(into hasher: inout Hasher) { hasher.combine(self.rawRepresentation) }
}
