import Foundation
import Logging
import WotsCore
import WotsCrypto

extension Messenger {
    /// The local account with its private keys opened, and the relay client logged in as it.
    struct Unlocked: Sendable {
        var account: LocalAccount
        var identity: IdentityKeys
        /// The keys derived from the secret: a rotation re-seals the new private keys with them. Never written to disk.
        var keys: SecretKeys

        var profile: Profile { self.account.profile }
        var token: Token { self.account.profile.token }
    }

    /// Opens the local account's private keys and sets the relay client to log in as it.
    ///
    /// An explicit secret (`--secret-file`, `WOTS_SECRET`) is used first; otherwise keys kept by `unlockSession(for:)`
    /// are used when they still open the account (kept keys that do not are forgotten); otherwise the secret is asked.
    /// - Throws: `WotsError.notRegistered`, `.wrongSecret`, `.secretUnavailable`.
    func unlock() async throws -> Unlocked {
        let account = try self.store.account()
        let (identity, keys) = try self.openIdentity(of: account)
        guard identity.fingerprint == account.profile.fingerprint else {
            throw WotsError(
                .localStore,
                "the private keys in \(self.store.home.path) do not match the profile's fingerprint; run `wots restore`"
            )
        }
        await self.relay.authenticate(
            as: account.profile.token,
            identity: identity,
            nickname: account.profile.nickname,
            relayID: account.profile.pinnedRelayID,
            pinning: { [store, logger] relayID in
                // A profile written before relays were pinned: the first relay to answer is pinned (trust on first
                // use), as a contact's key is.
                do {
                    var pinned = try store.account()
                    pinned.profile.relayID = Data(relayID).base64EncodedString()
                    try store.replace(pinned)
                } catch {
                    logger.warning("could not pin the relay's id in the profile: \(error)")
                }
            }
        )
        return Unlocked(account: account, identity: identity, keys: keys)
    }

    /// Asks for the secret once and keeps the derived keys for `duration`, so commands until then need not ask.
    /// - Returns: the account unlocked.
    /// - Throws: `WotsError.secretUnavailable` when there is nowhere to keep them (no unlock cache, or the session
    ///   keyring is unavailable), `.wrongSecret`, `.notRegistered`.
    public func unlockSession(for duration: Duration) throws -> Profile {
        let account = try self.store.account()
        let nickname = account.profile.nickname
        guard let cache = self.configuration.unlockCache else {
            throw WotsError(.secretUnavailable, "cannot keep \(nickname) unlocked: there is nowhere to keep the keys")
        }
        do {
            // Fails when the keyring is unusable, before anyone types a secret for nothing.
            _ = try cache.keys(for: account.profile)
        } catch let error as WotsError {
            throw WotsError(error.code, "cannot keep \(nickname) unlocked: \(error.reason)")
        }
        let keys = try self.deriveKeys(for: account, secret: try self.readSecret(for: account.profile))
        let identity = try self.open(account, with: keys)
        guard identity.fingerprint == account.profile.fingerprint else {
            throw WotsError(
                .localStore,
                "the private keys in \(self.store.home.path) do not match the profile's fingerprint; run `wots restore`"
            )
        }
        try cache.keep(keys, for: account.profile, duration: duration)
        return account.profile
    }

    /// Forgets the keys kept by `unlockSession(for:)`, so the next command asks for the secret again.
    /// - Returns: the account, and whether it was unlocked.
    public func lockSession() throws -> (profile: Profile, wasUnlocked: Bool) {
        let profile = try self.store.account().profile
        guard let cache = self.configuration.unlockCache else { return (profile, false) }
        do {
            return (profile, try cache.forget(profile))
        } catch let error as WotsError where error.code == .secretUnavailable {
            // A keyring that cannot be used holds nothing to forget.
            return (profile, false)
        }
    }

    // MARK: Opening

    private func openIdentity(of account: LocalAccount) throws -> (IdentityKeys, SecretKeys) {
        if self.configuration.secret.isInteractive, let kept = self.keptKeys(for: account.profile) {
            do {
                return (try self.open(account, with: kept), kept)
            } catch let error as WotsError where error.code == .wrongSecret {
                _ = try? self.configuration.unlockCache?.forget(account.profile)
                self.configuration.notice(
                    "wots: the keys kept by `wots unlock` no longer open \(account.profile.nickname)'s private keys; "
                        + "forgot them"
                )
            }
        }
        let keys = try self.deriveKeys(for: account, secret: try self.readSecret(for: account.profile))
        return (try self.open(account, with: keys), keys)
    }

    /// Keys kept for the account, if the cache has some; an unusable cache is noted once and treated as empty.
    private func keptKeys(for profile: Profile) -> SecretKeys? {
        guard let cache = self.configuration.unlockCache else { return nil }
        do {
            return try cache.keys(for: profile)
        } catch let error as WotsError {
            self.configuration.notice("wots: note: \(error.reason), so the secret is asked by every command")
            return nil
        } catch {
            return nil
        }
    }

    private func readSecret(for profile: Profile) throws -> String {
        if case .terminal = self.configuration.secret, !SecretSource.terminalAvailable {
            throw WotsError(
                .secretUnavailable,
                "no secret for \(profile.nickname): it is not unlocked (`wots unlock`) and there is no terminal to "
                    + "ask on; give --secret-file FILE or WOTS_SECRET"
            )
        }
        return try self.configuration.secret.read(prompt: "Secret for \(profile.nickname): ")
    }

    private func deriveKeys(for account: LocalAccount, secret: String) throws -> SecretKeys {
        do {
            return try SecretKeys.derive(secret: secret, parameters: account.privateRecord.keyDerivation)
        } catch {
            throw WotsError(.localStore, "cannot derive keys for the record in \(self.store.home.path): \(error)")
        }
    }

    private func open(_ account: LocalAccount, with keys: SecretKeys) throws -> IdentityKeys {
        do {
            return try account.privateRecord.openIdentity(keys: keys)
        } catch let error as WotsError where error.code == .wrongSecret {
            throw WotsError(.wrongSecret, "wrong secret for \(account.profile.nickname)")
        } catch {
            throw WotsError(.localStore, "cannot open the private keys in \(self.store.home.path): \(error)")
        }
    }
}
