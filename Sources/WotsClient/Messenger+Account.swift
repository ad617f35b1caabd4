import Foundation
import Logging
public import WotsCore
import WotsCrypto

extension Messenger {
    /// The account in the home folder, without opening its keys.
    public func whoami() throws -> Profile { try self.store.account().profile }

    /// Makes new identity keys, seals them with the secret, and registers them at the relay and in the home folder
    /// through the save coordinator: both land, or neither stays.
    /// - Parameters:
    ///   - nickname: the name to register.
    ///   - avatar: a validated image or preset, or none.
    ///   - invite: the operator's invite code, for a relay that registers by invitation; default none.
    /// - Returns: the new profile (token, fingerprint, relay).
    /// - Throws: `WotsError.alreadyRegistered` when the home holds an account, the relay's refusal
    ///   (`nickname_taken`, `invite_invalid`, `registration_closed`, …), `.relayUnreachable`, `.secretUnavailable`.
    public func register(nickname: Nickname, avatar: Avatar?, invite: String? = nil) async throws -> Profile {
        try self.store.prepareHome()
        if self.store.hasAccount {
            let existing = try? self.store.account().profile
            throw WotsError(
                .alreadyRegistered,
                "\(self.store.home.path) holds the account \(existing.map { "\($0.nickname)" } ?? "of someone") already; "
                    + "use another --home to register another"
            )
        }
        let secret = try self.configuration.secret.read(prompt: "Choose a secret for \(nickname): ", confirm: true)
        try SecretSource.validateNew(secret)

        let relayID = try await self.relay.relayID()
        let identity = try IdentityKeys.generate()
        let token = Token.random()
        let record = try PrivateRecord.seal(identity: identity, token: token, secret: secret, avatar: avatar)
        let proof = try RegistrationProof.sign(
            relayID: relayID,
            token: token,
            nickname: nickname,
            publicKeys: identity.publicKeys,
            identity: identity
        )
        let request = RegistrationRequest(
            token: token,
            nickname: nickname,
            publicKeys: identity.publicKeys,
            privateRecord: record,
            proof: Data(proof).base64EncodedString(),
            invite: invite
        )
        let profile = Profile(
            token: token,
            nickname: nickname,
            relay: self.relay.baseURL,
            publicKeys: identity.publicKeys,
            fingerprint: identity.fingerprint,
            registeredAt: Date(),
            relayID: relayID
        )
        // Undoing the relay half needs a session, so the relay client knows the new identity from the start.
        await self.relay.authenticate(as: token, identity: identity, nickname: nickname, relayID: relayID)
        let registered = Box<DirectoryEntry>()
        let coordinator = SaveCoordinator(
            publicHalf: RelayRegistration(relay: self.relay, registered: registered),
            privateHalf: LocalKeyStore(store: self.store),
            bus: EventBus(),
            onUndoFailure: { [logger] problem in logger.error("registration left half-written: \(problem)") }
        )
        try await coordinator.save(
            token: token,
            nickname: nickname,
            publicItem: RelayRegistration.Item(request: request),
            privateItem: LocalAccount(profile: profile, privateRecord: record)
        )
        guard let entry = registered.value else { return profile }
        guard entry.fingerprint == identity.fingerprint, entry.token == token else {
            throw WotsError(.invalidResponse, "\(self.relay.baseURL) registered other keys than the ones sent")
        }
        var saved = profile
        saved.registeredAt = entry.registeredAt
        saved.nickname = entry.nickname
        try? self.store.replace(LocalAccount(profile: saved, privateRecord: record))
        return saved
    }

    /// Rebuilds the home folder from the relay: fetches the sealed private record with proof of the secret and
    /// opens it locally. A home that holds the same account already takes the relay's current keys (after a rotation
    /// on another machine); its contacts and seen messages stay.
    /// - Throws: `WotsError.alreadyRegistered` when the home holds another account, `.wrongSecret`,
    ///   `.unknownNickname`, the relay's `rate_limited`.
    public func restore(nickname: Nickname) async throws -> Profile {
        try self.store.prepareHome()
        let existing = self.store.hasAccount ? try self.store.account().profile : nil
        if let existing, existing.nickname != nickname {
            throw WotsError(
                .alreadyRegistered,
                "\(self.store.home.path) holds the account \(existing.nickname) already; restore \(nickname) into an "
                    + "empty --home"
            )
        }
        let parameters = try await self.relay.restoreParameters(nickname: nickname).keyDerivation
        do {
            // Before the secret is typed: a relay offering a cheap cost is after a credential it can guess from.
            try parameters.checkBounds()
        } catch let error as WotsError {
            throw WotsError(
                .invalidKeyDerivation,
                "\(self.relay.baseURL) offered key-derivation parameters below the floor every client keeps, refusing "
                    + "to derive anything from the secret with them: \(error.reason)"
            )
        }
        let secret = try self.configuration.secret.read(prompt: "Secret for \(nickname): ")
        let keys = try SecretKeys.derive(secret: secret, parameters: parameters)
        let (account, relayID) = try await self.relay.restore(nickname: nickname, keys: keys)
        guard account.entry.nickname == nickname, account.privateRecord.token == account.entry.token else {
            throw WotsError(.invalidResponse, "\(self.relay.baseURL) returned another account than \(nickname)")
        }
        let identity: IdentityKeys
        do {
            identity = try account.privateRecord.openIdentity(keys: keys)
        } catch let error as WotsError where error.code == .wrongSecret {
            throw WotsError(.wrongSecret, "wrong secret for \(nickname)")
        }
        guard identity.fingerprint == account.entry.fingerprint else {
            throw WotsError(
                .invalidResponse,
                "the private keys stored at \(self.relay.baseURL) do not match \(nickname)'s published fingerprint"
            )
        }
        let profile = Profile(entry: account.entry, relay: self.relay.baseURL, relayID: relayID, restoredAt: Date())
        let restored = LocalAccount(profile: profile, privateRecord: account.privateRecord)
        guard let existing else {
            try self.store.create(restored)
            return profile
        }
        // The same account again (its keys were rotated on another machine): take the current keys, keep the
        // contacts and seen messages.
        guard existing.token == profile.token else {
            throw WotsError(
                .alreadyRegistered,
                "\(nickname) at \(self.relay.baseURL) is another account than the one in \(self.store.home.path) "
                    + "(token \(profile.token), not \(existing.token)); restore into an empty --home"
            )
        }
        try self.store.replace(restored)
        return profile
    }

    /// Replaces the identity keys: new keys signed by old and new, the private record re-sealed under the same keys
    /// derived from the secret (same salt and cost), so the secret, the relay's verifier and keys kept by
    /// `wots unlock` all stay valid; it
    /// holds the old encryption key too (mail queued for it still opens).
    /// - Returns: the old and the new fingerprint.
    public func rotate() async throws -> (old: Fingerprint, new: Fingerprint) {
        let unlocked = try await self.unlock()
        // The old encryption key stays in the sealed record, so mail already sealed to it still opens.
        let newIdentity = unlocked.identity.rotated(to: try IdentityKeys.generate())
        let record = try PrivateRecord.seal(
            identity: newIdentity,
            token: unlocked.token,
            keys: unlocked.keys,
            parameters: unlocked.account.privateRecord.keyDerivation,
            avatar: unlocked.account.privateRecord.avatar
        )
        let proof = try RotationProof.sign(
            token: unlocked.token,
            oldIdentity: unlocked.identity,
            newIdentity: newIdentity
        )
        let request = RotationRequest(
            publicKeys: newIdentity.publicKeys,
            privateRecord: record,
            oldKeySignature: Data(proof.oldKeySignature).base64EncodedString(),
            newKeySignature: Data(proof.newKeySignature).base64EncodedString()
        )
        // Keep the new sealed keys on disk before the relay switches, so a crash in between loses nothing.
        try self.store.writePending(record)
        let entry: DirectoryEntry
        do {
            entry = try await self.relay.rotate(request)
        } catch {
            try? self.store.removePending()
            throw error
        }
        var profile = unlocked.profile
        profile.publicKeys = entry.publicKeys
        profile.fingerprint = entry.fingerprint
        try self.store.replace(LocalAccount(profile: profile, privateRecord: record))
        try? self.store.removePending()
        await self.relay.authenticate(
            as: unlocked.token,
            identity: newIdentity,
            nickname: profile.nickname,
            relayID: profile.pinnedRelayID
        )
        return (unlocked.profile.fingerprint, newIdentity.fingerprint)
    }

    /// Deletes the account at the relay (entry, private record, mailbox), then the local files.
    public func unregister() async throws -> Profile {
        let unlocked = try await self.unlock()
        try await self.relay.deleteAccount()
        try self.store.removeAccount()
        _ = try? self.configuration.unlockCache?.forget(unlocked.profile)
        return unlocked.profile
    }
}
