/// `POST /v1/register`: the public entry, the sealed private record and the proof of possession.
public struct RegistrationRequest: Sendable, Hashable, Codable {
    public var token: Token
    public var nickname: Nickname
    public var publicKeys: PublicKeys
    /// Its `token` must be the registration's token.
    public var privateRecord: PrivateRecord
    /// RSA-PSS signature by the new signing key over the registration proof bytes (SECURITY.md), base64.
    public var proof: String

    public init(token: Token, nickname: Nickname, publicKeys: PublicKeys, privateRecord: PrivateRecord, proof: String) {
        self.token = token
        self.nickname = nickname
        self.publicKeys = publicKeys
        self.privateRecord = privateRecord
        self.proof = proof
    }
}
