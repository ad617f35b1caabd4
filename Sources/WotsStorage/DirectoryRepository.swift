public import WotsCore

/// The public directory: who is registered under which nickname with which keys.
public protocol DirectoryRepository: Sendable {
    /// Adds an entry, and logs it (`registered`, carrying `attestation`) in the same transaction.
    /// - Parameter attestation: the user's proof of possession, kept in the log leaf; empty in tests.
    /// - Throws: `WotsError.nicknameTaken` when the nickname (ignoring case) is in use or tombstoned,
    ///   `.tokenTaken` when the token is in use or tombstoned.
    func create(_ entry: DirectoryEntry, attestation: [UInt8]) async throws

    /// Removes an entry that `create` just added, leaving no tombstone, and logs it as `withdrawn`. Only the save
    /// coordinator calls this, to undo half of a registration whose other half failed. Does nothing when there is
    /// no such entry.
    func undoCreate(token: Token) async throws

    /// The live entry with this nickname, nil when there is none (or only a tombstone).
    func entry(nickname: Nickname) async throws -> DirectoryEntry?

    /// The live entry with this token, nil when there is none (or only a tombstone).
    func entry(token: Token) async throws -> DirectoryEntry?

    /// Up to `limit` live entries ordered by nickname, starting after `cursor` (keyset pagination: any page costs
    /// what the first one costs). `next` is nil on the last page.
    func page(limit: PageLimit, after cursor: Cursor?) async throws -> Page<DirectoryEntry>

    /// Replaces an account's public keys and fingerprint, and logs it (`keysRotated`, carrying `attestation`).
    /// - Parameter attestation: the rotation proof's signatures, kept in the log leaf; empty in tests.
    /// - Returns: the updated entry.
    /// - Throws: `WotsError.notFound` when the token has no live entry.
    func rotateKeys(token: Token, publicKeys: PublicKeys, fingerprint: Fingerprint, attestation: [UInt8])
        async throws -> DirectoryEntry

    /// Deletes an account's entry, leaving a tombstone so its nickname and token are never bound to new keys, and
    /// logs it (`deleted`).
    /// - Throws: `WotsError.notFound` when the token has no live entry.
    func delete(token: Token) async throws

    /// How many live entries there are.
    func count() async throws -> Int
}

extension DirectoryRepository {
    /// `create(_:attestation:)` with no attestation.
    public func create(_ entry: DirectoryEntry) async throws {
        try await self.create(entry, attestation: [])
    }

    /// `rotateKeys(token:publicKeys:fingerprint:attestation:)` with no attestation.
    public func rotateKeys(token: Token, publicKeys: PublicKeys, fingerprint: Fingerprint) async throws
        -> DirectoryEntry
    {
        try await self.rotateKeys(token: token, publicKeys: publicKeys, fingerprint: fingerprint, attestation: [])
    }

    /// `page(limit:after:)` with a limit that is checked first.
    /// - Throws: `WotsError.invalidArgument` naming the range 1–100 when `limit` is outside it.
    public func page(limit: Int, after cursor: Cursor?) async throws -> Page<DirectoryEntry> {
        guard let checked = try? PageLimit(limit) else {
            throw WotsError(.invalidArgument, "limit \(limit) is out of range (1–\(PageLimit.maximum))")
        }
        return try await self.page(limit: checked, after: cursor)
    }
}
