/// `POST /v1/register`: the public entry, the sealed private record and the proof of possession.
public struct RegistrationRequest: Sendable, Hashable, Codable {
    public var token: Token
    public var nickname: Nickname
    public var publicKeys: PublicKeys
    /// Its `token` must be the registration's token.
    public var privateRecord: PrivateRecord
    /// RSA-PSS signature by the new signing key over the registration proof bytes (SECURITY.md), base64.
    public var proof: String
    /// The operator's invite code, for a relay that registers by invitation; absent otherwise (an open relay ignores
    /// it). Not covered by the proof: it only admits the registration.
    public var invite: String?

    public init(
        token: Token,
        nickname: Nickname,
        publicKeys: PublicKeys,
        privateRecord: PrivateRecord,
        proof: String,
        invite: String? = nil
    ) {
        self.token = token
        self.nickname = nickname
        self.publicKeys = publicKeys
        self.privateRecord = privateRecord
        self.proof = proof
        self.invite = invite
    }
}
