public import Foundation

/// One account in the public directory.
public struct DirectoryEntry: Sendable, Hashable, Codable {
    public var token: Token
    public var nickname: Nickname
    public var publicKeys: PublicKeys
    public var fingerprint: Fingerprint
    public var registeredAt: Date

    public init(token: Token, nickname: Nickname, publicKeys: PublicKeys, fingerprint: Fingerprint, registeredAt: Date)
    {
        self.token = token
        self.nickname = nickname
        self.publicKeys = publicKeys
        self.fingerprint = fingerprint
        self.registeredAt = registeredAt
    }
}
