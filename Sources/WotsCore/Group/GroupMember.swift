/// A member as a group state records it: the token, the key fingerprint the group saw, the role, and when it joined.
public struct GroupMember: Sendable, Hashable, Codable {
    /// 16 + 32 + 1 + 8.
    public static let encodedSize = 57

    public var token: Token
    /// The fingerprint the admin who added the member saw (and trusted) then.
    public var fingerprint: Fingerprint
    public var isAdmin: Bool
    /// The state version whose update added the member (1 for the creator's members).
    public var joinedAt: UInt64

    public init(token: Token, fingerprint: Fingerprint, isAdmin: Bool = false, joinedAt: UInt64) {
        self.token = token
        self.fingerprint = fingerprint
        self.isAdmin = isAdmin
        self.joinedAt = joinedAt
    }

    private enum CodingKeys: String, CodingKey {
        case token, fingerprint
        case isAdmin = "admin"
        case joinedAt
    }
}
