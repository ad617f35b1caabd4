public import WotsCore

/// A group as `wots group list` and `wots group show` print it.
///
/// JSON: `{"id", "name", "avatar", "version", "member", "admin", "members": [{"token", "nickname", "fingerprint",
/// "admin", "joinedAt", "key", "keyRecorded"}]}`; `avatar` the group's preset name or null; `member`/`admin` say
/// whether this account is one; a member's `key` is `pinned` (the key pinned here is the one published), `changed` (it
/// is not: refused for wrapping until `wots trust NICK`), `unpinned` (never used here yet), or null when not checked
/// (`list`); `keyRecorded` whether the published key is the one the group state recorded (`fingerprint`), null when
/// not checked; `disappearAfter` the group's timer in seconds (0 = off), null when not read (`list`).
public struct GroupSummary: Sendable, Hashable, Encodable {
    public struct Member: Sendable, Hashable, Encodable {
        public enum KeyStatus: String, Sendable, Hashable, Encodable {
            case pinned, changed, unpinned
        }

        public var token: Token
        public var nickname: Nickname?
        /// The fingerprint the group state recorded.
        public var fingerprint: Fingerprint
        public var admin: Bool
        public var joinedAt: UInt64
        public var key: KeyStatus?
        /// Whether the published key is the one the group recorded; nil when not checked.
        public var keyRecorded: Bool?

        private enum CodingKeys: String, CodingKey {
            case token, nickname, fingerprint, admin, joinedAt, key, keyRecorded
        }

        public func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: CodingKeys.self)
            try container.encode(self.token, forKey: .token)
            try container.encode(self.nickname, forKey: .nickname)
            try container.encode(self.fingerprint, forKey: .fingerprint)
            try container.encode(self.admin, forKey: .admin)
            try container.encode(self.joinedAt, forKey: .joinedAt)
            try container.encode(self.key, forKey: .key)
            try container.encode(self.keyRecorded, forKey: .keyRecorded)
        }
    }

    public var id: GroupID
    public var name: String
    /// The group's avatar preset, if it has one.
    public var avatar: Avatar.Preset?
    public var version: UInt64
    public var member: Bool
    public var admin: Bool
    public var members: [Member]
    /// The group's disappearing timer here, in seconds (0 = off); nil when not read (`list`).
    public var disappearAfter: UInt32?

    private enum CodingKeys: String, CodingKey {
        case id, name, avatar, version, member, admin, members, disappearAfter
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(self.id, forKey: .id)
        try container.encode(self.name, forKey: .name)
        try container.encode(self.avatar, forKey: .avatar)
        try container.encode(self.version, forKey: .version)
        try container.encode(self.member, forKey: .member)
        try container.encode(self.admin, forKey: .admin)
        try container.encode(self.members, forKey: .members)
        try container.encode(self.disappearAfter, forKey: .disappearAfter)
    }

    init(_ chain: GroupChain, contacts: ContactBook) {
        let state = chain.current
        self.id = state.id
        self.name = state.name
        self.avatar = state.avatar
        self.version = state.version
        self.member = chain.isMember
        self.admin = state.isAdmin(chain.owner)
        self.members = state.members.map { member in
            Member(
                token: member.token,
                nickname: contacts.contact(token: member.token)?.nickname,
                fingerprint: member.fingerprint,
                admin: member.isAdmin,
                joinedAt: member.joinedAt
            )
        }
    }
}
