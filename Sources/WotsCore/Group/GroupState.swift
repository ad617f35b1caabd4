/// One version of a group: its name, avatar and members, chained to the previous version by hash.
///
/// `stateBytes` is the canonical form SECURITY.md defines ("Group state and its hash"); `WotsCrypto` hashes it.
public struct GroupState: Sendable, Hashable, Codable {
    /// Domain-separation label of the state hash (the zero byte follows it).
    public static let hashLabel: [UInt8] = Array("wots-group-state-v1".utf8) + [0]
    public static let maximumMembers = 256
    public static let nameSizes = 1...100
    /// The previous hash of a version 1 state.
    public static let noPreviousState = [UInt8](repeating: 0, count: 32)

    public var id: GroupID
    public var version: UInt64
    /// The hash of the state this one replaced; 32 zero bytes at version 1.
    public var previous: [UInt8]
    public var name: String
    public var avatar: Avatar.Preset?
    /// Sorted by token (the initializer sorts them); no duplicates.
    public var members: [GroupMember]

    public init(
        id: GroupID,
        version: UInt64,
        previous: [UInt8],
        name: String,
        avatar: Avatar.Preset? = nil,
        members: [GroupMember]
    ) {
        self.id = id
        self.version = version
        self.previous = previous
        self.name = name
        self.avatar = avatar
        self.members = members.sorted { $0.token < $1.token }
    }

    public func member(_ token: Token) -> GroupMember? { self.members.first { $0.token == token } }

    public func isAdmin(_ token: Token) -> Bool { self.member(token)?.isAdmin ?? false }

    public var tokens: [Token] { self.members.map(\.token) }

    /// Checks the rules every state obeys.
    /// - Throws: `WotsError.malformed` naming the rule.
    public func validate() throws {
        guard self.version >= 1, self.previous.count == 32,
            (self.version == 1) == (self.previous == Self.noPreviousState)
        else {
            throw WotsError(.malformed, "group state version \(self.version) has a wrong previous-state hash")
        }
        let nameBytes = self.name.utf8.count
        guard Self.nameSizes.contains(nameBytes),
            !self.name.unicodeScalars.contains(where: { $0.properties.generalCategory == .control })
        else {
            throw WotsError(.malformed, "group name is \(nameBytes) bytes or has control characters (1–100 bytes)")
        }
        guard (1...Self.maximumMembers).contains(self.members.count) else {
            throw WotsError(.malformed, "group has \(self.members.count) members (1–\(Self.maximumMembers))")
        }
        for (earlier, later) in zip(self.members, self.members.dropFirst()) where !(earlier.token < later.token) {
            throw WotsError(.malformed, "group members must be sorted without duplicates (\(later.token))")
        }
        guard self.members.contains(where: \.isAdmin) else {
            throw WotsError(.malformed, "group state version \(self.version) has no admin")
        }
        guard self.members.allSatisfy({ (1...self.version).contains($0.joinedAt) }) else {
            throw WotsError(.malformed, "a member of group state \(self.version) joined at a later or zero version")
        }
    }

    /// The canonical bytes the state hash covers, without the label.
    public var stateBytes: [UInt8] {
        var writer = ByteWriter(capacity: 64 + self.name.utf8.count + GroupMember.encodedSize * self.members.count)
        writer.write(self.id.bytes)
        writer.write(integer: self.version)
        writer.write(self.previous)
        writer.write(uint16Prefixed: Array(self.name.utf8))
        if let avatar = self.avatar {
            writer.write(integer: UInt8(1))
            let name = Array(avatar.rawValue.utf8)
            writer.write(integer: UInt8(name.count))
            writer.write(name)
        } else {
            writer.write(integer: UInt8(0))
        }
        writer.write(integer: UInt16(clamping: self.members.count))
        for member in self.members {
            writer.write(member.token.bytes)
            writer.write(member.fingerprint.bytes)
            writer.write(integer: UInt8(member.isAdmin ? 1 : 0))
            writer.write(integer: member.joinedAt)
        }
        return writer.bytes
    }

    private enum CodingKeys: String, CodingKey {
        case id, version, previous, name, avatar, members
    }

    private struct AvatarWire: Codable {
        var preset: Avatar.Preset
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        let previousHex = try container.decode(String.self, forKey: .previous)
        guard let previous = Hex.decode(previousHex), previous.count == 32 else {
            throw WotsError(.malformed, "group state previous hash \"\(previousHex.prefix(80))\" is not 64 hex digits")
        }
        self.init(
            id: try container.decode(GroupID.self, forKey: .id),
            version: try container.decode(UInt64.self, forKey: .version),
            previous: previous,
            name: try container.decode(String.self, forKey: .name),
            avatar: try container.decodeIfPresent(AvatarWire.self, forKey: .avatar)?.preset,
            members: try container.decode([GroupMember].self, forKey: .members)
        )
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(self.id, forKey: .id)
        try container.encode(self.version, forKey: .version)
        try container.encode(Hex.encode(self.previous), forKey: .previous)
        try container.encode(self.name, forKey: .name)
        try container.encodeIfPresent(self.avatar.map(AvatarWire.init), forKey: .avatar)
        try container.encode(self.members, forKey: .members)
    }
}
