/// What a user keeps on the relay so they can restore their account elsewhere; the relay cannot open it.
public struct PrivateRecord: Sendable, Hashable, Codable {
    public var token: Token
    public var keyDerivation: KeyDerivationParameters
    /// Both private keys sealed with AES-256-GCM under the key derived from the secret (layout in SECURITY.md).
    public var sealedPrivateKeys: [UInt8]
    /// SHA-256 of the authentication key derived from the secret.
    public var secretVerifier: [UInt8]
    public var avatar: Avatar?

    public init(
        token: Token,
        keyDerivation: KeyDerivationParameters,
        sealedPrivateKeys: [UInt8],
        secretVerifier: [UInt8],
        avatar: Avatar?
    ) {
        self.token = token
        self.keyDerivation = keyDerivation
        self.sealedPrivateKeys = sealedPrivateKeys
        self.secretVerifier = secretVerifier
        self.avatar = avatar
    }

    private enum CodingKeys: String, CodingKey {
        case token, keyDerivation, sealedPrivateKeys, secretVerifier, avatar
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        self.token = try container.decode(Token.self, forKey: .token)
        self.keyDerivation = try container.decode(KeyDerivationParameters.self, forKey: .keyDerivation)
        self.sealedPrivateKeys = try container.decodeBase64(forKey: .sealedPrivateKeys)
        self.secretVerifier = try container.decodeBase64(forKey: .secretVerifier)
        self.avatar = try container.decodeIfPresent(Avatar.self, forKey: .avatar)
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(self.token, forKey: .token)
        try container.encode(self.keyDerivation, forKey: .keyDerivation)
        try container.encodeBase64(self.sealedPrivateKeys, forKey: .sealedPrivateKeys)
        try container.encodeBase64(self.secretVerifier, forKey: .secretVerifier)
        try container.encodeIfPresent(self.avatar, forKey: .avatar)
    }
}
