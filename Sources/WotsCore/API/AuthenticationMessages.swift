public import Foundation

/// `POST /v1/auth/challenge` answer: a single-use nonce to sign, this relay's id, and when the nonce expires.
public struct ChallengeResponse: Sendable, Hashable, Codable {
    /// Standard base64.
    public var nonce: String
    /// Standard base64 of the relay's random id, signed along with the nonce.
    public var relayID: String
    public var expiresAt: Date

    public init(nonce: String, relayID: String, expiresAt: Date) {
        self.nonce = nonce
        self.relayID = relayID
        self.expiresAt = expiresAt
    }
}

/// `POST /v1/auth/session` body: the signed challenge.
public struct SessionRequest: Sendable, Hashable, Codable {
    public var token: Token
    /// The nonce exactly as the challenge gave it (base64).
    public var nonce: String
    /// RSA-PSS signature (base64) over the authentication bytes of SECURITY.md.
    public var signature: String

    public init(token: Token, nonce: String, signature: String) {
        self.token = token
        self.nonce = nonce
        self.signature = signature
    }
}

/// `POST /v1/auth/session` answer: a bearer session for `Authorization: Bearer …`.
public struct SessionResponse: Sendable, Hashable, Codable {
    public var session: String
    public var expiresAt: Date

    public init(session: String, expiresAt: Date) {
        self.session = session
        self.expiresAt = expiresAt
    }
}

/// `GET /v1/relay` answer: the relay's permanent random id, which clients pin at registration and which every
/// challenge answer and registration proof signs, and the verifier key of its transparency log.
public struct RelayIdentity: Sendable, Hashable, Codable {
    /// Standard base64.
    public var relayID: String
    /// The C2SP verifier key (`NAME+KEYID+BASE64(0x01 || Ed25519 key)`) that signs the log's checkpoints; nil from a
    /// relay without a log.
    public var logKey: String?

    public init(relayID: String, logKey: String? = nil) {
        self.relayID = relayID
        self.logKey = logKey
    }
}
