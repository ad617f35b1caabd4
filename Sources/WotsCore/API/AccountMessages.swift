/// `POST /v1/restore/parameters` body and `POST /v1/restore` body share the nickname.
public struct RestoreParametersRequest: Sendable, Hashable, Codable {
    public var nickname: Nickname

    public init(nickname: Nickname) { self.nickname = nickname }
}

/// `POST /v1/restore/parameters` answer: the scrypt salt and cost needed to derive the authentication key.
public struct RestoreParametersResponse: Sendable, Hashable, Codable {
    public var keyDerivation: KeyDerivationParameters

    public init(keyDerivation: KeyDerivationParameters) { self.keyDerivation = keyDerivation }
}

/// `POST /v1/restore` body: proof of the secret, as the authentication key derived from it (base64).
public struct RestoreRequest: Sendable, Hashable, Codable {
    public var nickname: Nickname
    public var authenticationKey: String

    public init(nickname: Nickname, authenticationKey: String) {
        self.nickname = nickname
        self.authenticationKey = authenticationKey
    }
}

/// `POST /v1/restore` answer, and `GET /v1/private`'s: the directory entry and the sealed private record.
public struct AccountResponse: Sendable, Hashable, Codable {
    public var entry: DirectoryEntry
    public var privateRecord: PrivateRecord

    public init(entry: DirectoryEntry, privateRecord: PrivateRecord) {
        self.entry = entry
        self.privateRecord = privateRecord
    }
}

/// `POST /v1/keys/rotate` body: new public keys and the re-sealed private record, signed by the old and new keys.
public struct RotationRequest: Sendable, Hashable, Codable {
    public var publicKeys: PublicKeys
    public var privateRecord: PrivateRecord
    /// Rotation proof signed by the current signing key (base64).
    public var oldKeySignature: String
    /// Rotation proof signed by the new signing key (base64).
    public var newKeySignature: String

    public init(publicKeys: PublicKeys, privateRecord: PrivateRecord, oldKeySignature: String, newKeySignature: String)
    {
        self.publicKeys = publicKeys
        self.privateRecord = privateRecord
        self.oldKeySignature = oldKeySignature
        self.newKeySignature = newKeySignature
    }
}
