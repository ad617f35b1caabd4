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

/// `POST /v1/restore` body: a challenge signed with the restore key derived from the secret (see SECURITY.md).
public struct RestoreRequest: Sendable, Hashable, Codable {
    public var nickname: Nickname
    /// The nonce exactly as `POST /v1/auth/challenge` gave it (base64).
    public var nonce: String
    /// Ed25519 signature (base64) over the restore bytes of SECURITY.md.
    public var signature: String

    public init(nickname: Nickname, nonce: String, signature: String) {
        self.nickname = nickname
        self.nonce = nonce
        self.signature = signature
    }
}

/// `POST /v1/account/delete` body: a challenge signed with the identity's signing key, so a session alone cannot
/// delete an account.
public struct DeletionRequest: Sendable, Hashable, Codable {
    /// The nonce exactly as `POST /v1/auth/challenge` gave it (base64).
    public var nonce: String
    /// RSA-PSS signature (base64) over the deletion bytes of SECURITY.md.
    public var signature: String

    public init(nonce: String, signature: String) {
        self.nonce = nonce
        self.signature = signature
    }
}

/// `POST /v1/restore` answer: the directory entry and the sealed private record.
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
