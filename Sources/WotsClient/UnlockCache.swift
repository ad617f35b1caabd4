public import WotsCrypto

/// Where `wots unlock` keeps the keys derived from an account's secret, so later commands need not ask for it.
///
/// Only the scrypt output is kept (encryption key and authentication key), never the secret and never an opened
/// private key. `SessionKeyring` is the implementation the CLI uses.
public protocol UnlockCache: Sendable {
    /// The keys kept for `profile`; nil when none are kept (or they expired).
    /// - Throws: `WotsError.secretUnavailable` when the cache cannot be used at all.
    func keys(for profile: Profile) throws -> SecretKeys?

    /// Keeps `keys` for `profile` for `duration`, replacing any kept before.
    /// - Throws: `WotsError.secretUnavailable` when the cache cannot be used.
    func keep(_ keys: SecretKeys, for profile: Profile, duration: Duration) throws

    /// Forgets the keys kept for `profile` at once.
    /// - Returns: whether there were some.
    @discardableResult
    func forget(_ profile: Profile) throws -> Bool
}
