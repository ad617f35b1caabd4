public import Foundation
public import WotsCore
public import WotsCrypto

/// A pre-generated identity for tests: fixed token and nickname, keys loaded from the bundled fixtures.
public struct TestIdentity: Sendable, CustomStringConvertible {
    public let token: Token
    public let nickname: Nickname
    public let identity: IdentityKeys
    /// The secret its private record is sealed with in `privateRecord(avatar:)`.
    public let secret: String

    public var publicKeys: PublicKeys { self.identity.publicKeys }
    public var fingerprint: Fingerprint { self.identity.fingerprint }

    public init(token: Token, nickname: Nickname, identity: IdentityKeys, secret: String) {
        self.token = token
        self.nickname = nickname
        self.identity = identity
        self.secret = secret
    }

    /// The public directory entry for this identity.
    /// - Parameter registeredAt: default 2025-01-01T00:00:00Z, so entries compare equal across runs.
    public func entry(registeredAt: Date = Date(timeIntervalSince1970: 1_735_689_600)) -> DirectoryEntry {
        DirectoryEntry(
            token: self.token,
            nickname: self.nickname,
            publicKeys: self.publicKeys,
            fingerprint: self.fingerprint,
            registeredAt: registeredAt
        )
    }

    /// A private record sealing this identity's keys under `secret` at the standard cost (keys derived once).
    public func privateRecord(avatar: Avatar? = nil) throws -> PrivateRecord {
        let (parameters, keys) = try TestSecretKeys.derived(from: self.secret)
        return try PrivateRecord.seal(
            identity: self.identity,
            token: self.token,
            keys: keys,
            parameters: parameters,
            avatar: avatar
        )
    }

    /// The keys derived from `secret` with the parameters of `privateRecord(avatar:)`.
    public func secretKeys() throws -> SecretKeys { try TestSecretKeys.derived(from: self.secret).keys }

    /// A registration proof of possession signed by this identity for the relay `relayID`.
    public func registrationProof(relayID: [UInt8]) throws -> [UInt8] {
        try RegistrationProof.sign(
            relayID: relayID,
            token: self.token,
            nickname: self.nickname,
            publicKeys: self.publicKeys,
            identity: self.identity
        )
    }

    public var description: String { "TestIdentity(\(self.nickname), \(self.token))" }
}
