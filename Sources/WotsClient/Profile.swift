public import Foundation
public import WotsCore

/// Who this machine's account is: public facts only, stored as `profile.json`.
public struct Profile: Sendable, Hashable, Codable {
    public var token: Token
    public var nickname: Nickname
    /// The relay the account is registered at, as the user gave it.
    public var relay: String
    public var publicKeys: PublicKeys
    public var fingerprint: Fingerprint
    public var registeredAt: Date
    /// The relay's id (standard base64), pinned at registration or restore: a relay answering with another id is
    /// refused. Nil in profiles written before pinning; the first login then pins it.
    public var relayID: String?
    /// When this home restored the account, if it did: mail dated before it may be old mail served again.
    public var restoredAt: Date?
    /// Whether this account tells senders when a person saw their messages (`wots settings --read-receipts`);
    /// nil (profiles from before the setting) means on.
    public var readReceipts: Bool?

    /// The pinned relay id's bytes.
    public var pinnedRelayID: [UInt8]? { self.relayID.flatMap { Data(base64Encoded: $0) }.map(Array.init) }

    public init(
        token: Token,
        nickname: Nickname,
        relay: String,
        publicKeys: PublicKeys,
        fingerprint: Fingerprint,
        registeredAt: Date,
        relayID: [UInt8]? = nil,
        restoredAt: Date? = nil
    ) {
        self.token = token
        self.nickname = nickname
        self.relay = relay
        self.publicKeys = publicKeys
        self.fingerprint = fingerprint
        self.registeredAt = registeredAt
        self.relayID = relayID.map { Data($0).base64EncodedString() }
        self.restoredAt = restoredAt
    }

    init(entry: DirectoryEntry, relay: String, relayID: [UInt8]?, restoredAt: Date?) {
        self.init(
            token: entry.token,
            nickname: entry.nickname,
            relay: relay,
            publicKeys: entry.publicKeys,
            fingerprint: entry.fingerprint,
            registeredAt: entry.registeredAt,
            relayID: relayID,
            restoredAt: restoredAt
        )
    }
}

/// What `LocalStore` keeps of an account: the profile and the sealed private record.
public struct LocalAccount: Sendable, Hashable {
    public var profile: Profile
    public var privateRecord: PrivateRecord

    public init(profile: Profile, privateRecord: PrivateRecord) {
        self.profile = profile
        self.privateRecord = privateRecord
    }
}

extension LocalStore {
    /// The account stored here.
    /// - Throws: `WotsError.notRegistered` when there is none, `.localStore` when its files are damaged.
    public func account() throws -> LocalAccount {
        guard let profile = try self.read(Profile.self, from: FileName.profile) else {
            throw WotsError(
                .notRegistered,
                "no account in \(self.home.path); run `wots register --nick NAME` or `wots restore --nick NAME`"
            )
        }
        guard let record = try self.read(PrivateRecord.self, from: FileName.privateRecord) else {
            throw WotsError(.localStore, "\(self.url(FileName.privateRecord).path) is missing; run `wots restore`")
        }
        guard record.token == profile.token else {
            throw WotsError(.localStore, "the private record in \(self.home.path) belongs to another token")
        }
        return LocalAccount(profile: profile, privateRecord: record)
    }

    /// Writes a new account; refuses to overwrite one (the private record first, the profile last, so a
    /// half-written account is never mistaken for a whole one).
    /// - Throws: `WotsError.alreadyRegistered` when the home holds an account already.
    public func create(_ account: LocalAccount) throws {
        try self.prepareHome()
        if self.hasAccount {
            throw WotsError(.alreadyRegistered, "\(self.home.path) holds an account already (see `wots whoami`)")
        }
        try self.write(account.privateRecord, to: FileName.privateRecord)
        do {
            try self.write(account.profile, to: FileName.profile, exclusive: true)
        } catch {
            try? self.remove(FileName.privateRecord)
            if self.hasAccount {
                throw WotsError(.alreadyRegistered, "\(self.home.path) holds an account already (see `wots whoami`)")
            }
            throw error
        }
    }

    /// Replaces the stored account (after a key rotation).
    public func replace(_ account: LocalAccount) throws {
        try self.write(account.privateRecord, to: FileName.privateRecord)
        try self.write(account.profile, to: FileName.profile)
    }

    /// Removes every file this store wrote; the folder stays.
    public func removeAccount() throws {
        for name in [
            FileName.profile, FileName.privateRecord, FileName.pendingPrivateRecord, FileName.contacts,
            FileName.seenMessages, "outbox.json",
        ] {
            try self.remove(name)
        }
    }

    /// Keeps a re-sealed private record beside the current one while the relay is asked to accept it.
    func writePending(_ record: PrivateRecord) throws { try self.write(record, to: FileName.pendingPrivateRecord) }

    func removePending() throws { try self.remove(FileName.pendingPrivateRecord) }
}
