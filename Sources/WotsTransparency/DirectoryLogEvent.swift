public import WotsCore

/// One change to the directory as the transparency log records it: the canonical bytes of a leaf.
///
/// ```
/// "wots-log-v1" 0x00
/// u8  kind (1 registered, 2 keys rotated, 3 deleted, 4 registration withdrawn)
/// token (16 bytes)
/// u16 length || nickname (UTF-8, lower-cased)
/// u16 length || signing SPKI DER        (the keys the token holds after the change; for 3 and 4, before it)
/// u16 length || encryption SPKI DER
/// u64 time of the change, milliseconds since 1970
/// u64 previous leaf of the same token + 1 (0: this is the token's first leaf)
/// u16 length || attestation (the user's own signatures over the change; empty when the relay made it)
/// ```
///
/// All integers are big-endian. A registration's attestation is its proof of possession; a rotation's is the old
/// key's signature then the new key's, each u16-length-prefixed.
public struct DirectoryLogEvent: Sendable, Hashable {
    /// What happened to the token.
    public enum Kind: UInt8, Sendable, Hashable, CaseIterable {
        case registered = 1
        case keysRotated = 2
        case deleted = 3
        /// A registration undone before it completed (its other half failed): the nickname is free again.
        case withdrawn = 4
    }

    /// Starts every leaf, so a leaf can never be read as another signed structure.
    public static let label: [UInt8] = Array("wots-log-v1".utf8) + [0]

    public var kind: Kind
    public var token: Token
    public var nickname: Nickname
    public var publicKeys: PublicKeys
    /// Milliseconds since 1970.
    public var timeMilliseconds: UInt64
    /// The index of the token's previous leaf, nil for its first.
    public var previousLeafIndex: UInt64?
    /// The user's own signatures over the change, empty when the relay made it (deletion, withdrawal, backfill).
    public var attestation: [UInt8]

    public init(
        kind: Kind,
        token: Token,
        nickname: Nickname,
        publicKeys: PublicKeys,
        timeMilliseconds: UInt64,
        previousLeafIndex: UInt64?,
        attestation: [UInt8] = []
    ) {
        self.kind = kind
        self.token = token
        self.nickname = nickname
        self.publicKeys = publicKeys
        self.timeMilliseconds = timeMilliseconds
        self.previousLeafIndex = previousLeafIndex
        self.attestation = attestation
    }

    /// The leaf bytes.
    /// - Throws: `malformed` when a key or the attestation is longer than 65,535 bytes.
    public func leafBytes() throws -> [UInt8] {
        for (field, bytes) in [
            ("signing key", self.publicKeys.signing), ("encryption key", self.publicKeys.encryption),
            ("attestation", self.attestation),
        ] where bytes.count > UInt16.max {
            throw Refuse.malformed("the \(field) of a log entry is \(bytes.count) bytes (at most 65,535)")
        }
        let name = Array(self.nickname.value.utf8)
        var writer = ByteWriter(
            capacity: Self.label.count + 40 + name.count + self.publicKeys.signing.count
                + self.publicKeys.encryption.count + self.attestation.count
        )
        writer.write(Self.label)
        writer.write(integer: self.kind.rawValue)
        writer.write(self.token.bytes)
        writer.write(uint16Prefixed: name)
        writer.write(uint16Prefixed: self.publicKeys.signing)
        writer.write(uint16Prefixed: self.publicKeys.encryption)
        writer.write(integer: self.timeMilliseconds)
        writer.write(integer: self.previousLeafIndex.map { $0 + 1 } ?? 0)
        writer.write(uint16Prefixed: self.attestation)
        return writer.bytes
    }

    /// The RFC 9162 leaf hash of `leafBytes()`.
    public func leafHash() throws -> MerkleHash {
        MerkleTree.leafHash(try self.leafBytes())
    }

    /// Parses leaf bytes, accepting exactly what `leafBytes()` writes.
    /// - Throws: `malformed` naming the first field that is wrong.
    public init(leafBytes: [UInt8]) throws {
        var reader = ByteReader(leafBytes)
        guard reader.read(count: Self.label.count) == Self.label else {
            throw Refuse.malformed("a log entry does not start with \"wots-log-v1\\0\"")
        }
        guard let rawKind = reader.readInteger(as: UInt8.self), let kind = Kind(rawValue: rawKind) else {
            throw Refuse.malformed("a log entry's kind is not 1–4")
        }
        guard let tokenBytes = reader.read(count: 16), let token = try? Token(bytes: tokenBytes) else {
            throw Refuse.malformed("a log entry's token is cut short")
        }
        guard let name = reader.readUInt16Prefixed(), let text = String(validating: name, as: UTF8.self),
            let nickname = try? Nickname(naming: text), nickname.value == text
        else {
            throw Refuse.malformed("a log entry's nickname is not a lower-case nickname")
        }
        guard let signing = reader.readUInt16Prefixed(), let encryption = reader.readUInt16Prefixed(),
            let time = reader.readInteger(as: UInt64.self), let previous = reader.readInteger(as: UInt64.self),
            let attestation = reader.readUInt16Prefixed()
        else {
            throw Refuse.malformed("a log entry is cut short")
        }
        guard reader.remaining == 0 else {
            throw Refuse.malformed("a log entry has \(reader.remaining) bytes after its attestation")
        }
        self.init(
            kind: kind,
            token: token,
            nickname: nickname,
            publicKeys: PublicKeys(signing: signing, encryption: encryption),
            timeMilliseconds: time,
            previousLeafIndex: previous == 0 ? nil : previous - 1,
            attestation: attestation
        )
    }
}
