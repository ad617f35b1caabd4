public import WotsCore

/// The random key that encrypts a client's conversation history at rest (one per account and machine).
///
/// It is stored only sealed: AES-256-GCM under `HMAC-SHA256(secret-derived encryption key, "wots-history-key-v1")`
/// with the account's token as associated data, so only someone holding the secret-derived keys (the secret, or the
/// keys kept by `wots unlock`) can open it. Each history row is AES-256-GCM under it with a fresh nonce and
/// associated data naming the row, so a row copied onto another row's place fails to open. Never describes itself.
public struct HistoryKey: Sendable, CustomStringConvertible {
    static let keyLabel = Array("wots-history-key-v1".utf8) + [0]
    static let rowLabel = Array("wots-history-row-v1".utf8) + [0]

    let bytes: [UInt8]

    /// A fresh random key.
    public static func generate() -> HistoryKey { HistoryKey(bytes: SecureRandom.bytes(AESGCM.keySize)) }

    public var description: String { "HistoryKey(256 bits)" }

    /// Seals this key for storage: nonce (12) || ciphertext || tag (16).
    /// - Throws: `crypto_library` if OpenSSL fails.
    public func sealed(with keys: SecretKeys, account: Token) throws -> [UInt8] {
        let nonce = SecureRandom.bytes(AESGCM.nonceSize)
        let wrapped = try AESGCM.seal(
            self.bytes,
            key: Self.wrappingKey(keys),
            nonce: nonce,
            aad: Self.keyLabel + account.bytes
        )
        return nonce + wrapped
    }

    /// Opens a key sealed by `sealed(with:account:)`.
    /// - Throws: `WotsError.wrongSecret` when the keys (or the account) are not the ones it was sealed with.
    public static func open(_ sealed: [UInt8], with keys: SecretKeys, account: Token) throws -> HistoryKey {
        let failure = WotsError(.wrongSecret, "the secret-derived keys do not open this history's key")
        guard sealed.count == AESGCM.nonceSize + AESGCM.keySize + AESGCM.tagSize else { throw failure }
        let bytes = try AESGCM.open(
            Array(sealed.dropFirst(AESGCM.nonceSize)),
            key: Self.wrappingKey(keys),
            nonce: Array(sealed.prefix(AESGCM.nonceSize)),
            aad: Self.keyLabel + account.bytes,
            failure: failure
        )
        return HistoryKey(bytes: bytes)
    }

    /// Encrypts one row's content; `context` names the row (its conversation, sender and id).
    /// - Returns: nonce (12) || ciphertext || tag (16).
    public func seal(_ plaintext: [UInt8], context: [UInt8]) throws -> [UInt8] {
        let nonce = SecureRandom.bytes(AESGCM.nonceSize)
        return nonce + (try AESGCM.seal(plaintext, key: self.bytes, nonce: nonce, aad: Self.rowLabel + context))
    }

    /// Decrypts one row's content sealed with the same `context`.
    /// - Throws: `WotsError.localStore` when the row was changed, moved or sealed under another key.
    public func open(_ sealed: [UInt8], context: [UInt8]) throws -> [UInt8] {
        let failure = WotsError(.localStore, "a history row failed its integrity check (changed or moved on disk)")
        guard sealed.count >= AESGCM.nonceSize + AESGCM.tagSize else { throw failure }
        return try AESGCM.open(
            Array(sealed.dropFirst(AESGCM.nonceSize)),
            key: self.bytes,
            nonce: Array(sealed.prefix(AESGCM.nonceSize)),
            aad: Self.rowLabel + context,
            failure: failure
        )
    }

    private static func wrappingKey(_ keys: SecretKeys) -> [UInt8] {
        HMACSHA256.authenticationCode(key: keys.encryptionKey, message: Self.keyLabel)
    }
}
