public import Foundation
public import WotsCore

/// What the relay's operator changes besides the users themselves: suspensions and invites, and the statistics of
/// `admin stats`. Every change is one transaction.
///
/// Suspending, unsuspending and deleting (`AccountRepository.deleteAccount`) also tell the other processes on the
/// database in the same transaction (PostgreSQL: a notification; SQLite: a row in `account_changes` the relay
/// polls), so a running relay drops its sessions and streams at once.
public protocol AdministrationRepository: Sendable {
    /// Suspends a live account and ends every session of it; suspending a suspended account changes nothing.
    /// - Returns: the entry (it stays in the directory, so its nickname stays taken).
    /// - Throws: `unknown_token` when the token has no live entry.
    @discardableResult
    func suspend(token: Token, at now: Date) async throws -> DirectoryEntry

    /// Lifts a suspension; the account logs in again as before. Unsuspending an active account changes nothing.
    /// - Throws: `unknown_token` when the token has no live entry.
    @discardableResult
    func unsuspend(token: Token) async throws -> DirectoryEntry

    /// When the account was suspended; nil when it is not.
    func suspension(of token: Token) async throws -> Date?

    /// Every suspended live account with the time it was suspended.
    func suspensions() async throws -> [Token: Date]

    /// Stores a new invite.
    func createInvite(_ invite: Invite) async throws

    /// Every invite, newest first.
    func invites() async throws -> [Invite]

    /// Revokes an invite; revoking a revoked one keeps its first revocation time.
    /// - Returns: the invite as it is now.
    /// - Throws: `not_found` when no invite has this id.
    @discardableResult
    func revokeInvite(id: String, at now: Date) async throws -> Invite

    /// Adds a directory entry and spends one use of the invite whose code hashes to `codeHash`, in one transaction:
    /// when either fails neither happens, and concurrent redemptions never spend more uses than the invite has.
    /// - Throws: `invite_invalid` (naming no reason: unknown, used up, expired and revoked look alike),
    ///   `nickname_taken`, `token_taken`.
    /// - Parameter attestation: the registration's proof of possession, logged with the entry as
    ///   `DirectoryRepository.create(_:attestation:)` logs it.
    func create(_ entry: DirectoryEntry, redeemingInviteHash codeHash: [UInt8], now: Date, attestation: [UInt8])
        async throws

    /// Takes back a `create(_:redeemingInviteHash:now:attestation:)` whose other half failed: removes the entry (no
    /// tombstone; the log records the withdrawal) and gives the use back, in one transaction.
    func undoCreate(token: Token, restoringInviteHash codeHash: [UInt8]) async throws

    /// Accounts, waiting mail and registrations per day over the `days` UTC days ending with `now`'s.
    func statistics(now: Date, days: Int) async throws -> RelayStatistics
}

/// The refusal every backend gives for an invite that cannot be redeemed; the same whatever the reason, so a guesser
/// learns nothing about which codes exist.
package func unusableInvite() -> WotsError {
    WotsError(.inviteInvalid, "the invite code is not valid on this relay")
}
