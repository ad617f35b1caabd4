public import WotsCore

/// Changes that touch every part of an account at once, each one transaction: it happens whole or not at all.
public protocol AccountRepository: Sendable {
    /// Deletes an account: tombstones its directory entry (its nickname and token are never bound to new keys),
    /// removes its private record, its mailbox with what is remembered of its acknowledged messages, and every
    /// session.
    /// - Returns: the entry as it was.
    /// - Throws: `unknown_token` when the token has no live entry; nothing changes then or on any other failure.
    @discardableResult
    func deleteAccount(token: Token) async throws -> DirectoryEntry

    /// Replaces an account's public keys and fingerprint and its sealed private record, ends every session, and
    /// logs the new keys (`keysRotated`, carrying `attestation`, the rotation proof's signatures).
    /// - Returns: the updated entry.
    /// - Throws: `unknown_token` when the token has no live entry, `record_token_mismatch` when the record is
    ///   another token's; nothing changes then or on any other failure.
    func rotateKeys(
        token: Token,
        publicKeys: PublicKeys,
        fingerprint: Fingerprint,
        record: PrivateRecord,
        attestation: [UInt8]
    ) async throws -> DirectoryEntry
}

extension AccountRepository {
    /// `rotateKeys(token:publicKeys:fingerprint:record:attestation:)` with no attestation.
    public func rotateKeys(
        token: Token,
        publicKeys: PublicKeys,
        fingerprint: Fingerprint,
        record: PrivateRecord
    ) async throws -> DirectoryEntry {
        try await self.rotateKeys(
            token: token,
            publicKeys: publicKeys,
            fingerprint: fingerprint,
            record: record,
            attestation: []
        )
    }

    /// Checks what every backend checks before writing anything.
    package func validateRotation(token: Token, record: PrivateRecord) throws {
        guard record.token == token else {
            throw WotsError(.recordTokenMismatch, "the private record belongs to \(record.token), not \(token)")
        }
    }
}

/// The error every backend gives for an account that is not (or no longer) registered.
package func unknownAccount(_ token: Token) -> WotsError {
    WotsError(.unknownToken, "token \(token) has no account")
}
