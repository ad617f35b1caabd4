public import WotsCore

/// Proof of possession sent with a registration: the new signing key signs
/// `"wots-register-v2\0" || u16 len || relay id || token(16) || u16 len || nickname (UTF-8, lower-cased) ||
/// u16 len || signing SPKI || u16 len || encryption SPKI` with RSA-PSS (SHA-256, MGF1-SHA-256, salt 32). The relay
/// id (`GET /v1/relay`) binds it to one relay: a registration cannot be replayed to another.
public enum RegistrationProof {
    public static let label: [UInt8] = Array("wots-register-v2".utf8) + [0]

    /// The signed bytes.
    /// - Throws: `WotsError.malformed` when a key is longer than 65,535 bytes.
    public static func signedBytes(relayID: [UInt8], token: Token, nickname: Nickname, publicKeys: PublicKeys) throws
        -> [UInt8]
    {
        guard publicKeys.signing.count <= UInt16.max, publicKeys.encryption.count <= UInt16.max else {
            throw WotsError(.malformed, "public keys longer than 65,535 bytes")
        }
        guard (1...Int(UInt16.max)).contains(relayID.count) else {
            throw WotsError(.malformed, "relay id must be 1–65,535 bytes")
        }
        let name = Array(nickname.value.utf8)
        var writer = ByteWriter(capacity: label.count + 16 + 6 + name.count + publicKeys.signing.count * 2)
        writer.write(label)
        writer.write(uint16Prefixed: relayID)
        writer.write(token.bytes)
        writer.write(uint16Prefixed: name)
        writer.write(uint16Prefixed: publicKeys.signing)
        writer.write(uint16Prefixed: publicKeys.encryption)
        return writer.bytes
    }

    /// Signs the registration with the identity's signing key.
    /// - Throws: `WotsError.invalidKey` when `publicKeys` are not the identity's own, `crypto_library` if OpenSSL fails.
    public static func sign(
        relayID: [UInt8],
        token: Token,
        nickname: Nickname,
        publicKeys: PublicKeys,
        identity: IdentityKeys
    ) throws
        -> [UInt8]
    {
        guard publicKeys == identity.publicKeys else {
            throw WotsError(.invalidKey, "registration public keys are not this identity's keys")
        }
        return try identity.signing.signPSS(
            try Self.signedBytes(relayID: relayID, token: token, nickname: nickname, publicKeys: publicKeys)
        )
    }

    /// Whether both public keys are usable RSA-2048 keys and `signature` is the signing key's proof over the
    /// registration.
    public static func verify(
        signature: [UInt8],
        relayID: [UInt8],
        token: Token,
        nickname: Nickname,
        publicKeys: PublicKeys
    ) -> Bool {
        guard let keys = try? ParsedPublicKeys.parse(publicKeys),
            let message = try? Self.signedBytes(
                relayID: relayID,
                token: token,
                nickname: nickname,
                publicKeys: publicKeys
            )
        else { return false }
        return keys.signing.isValidSignature(signature, for: message)
    }
}
