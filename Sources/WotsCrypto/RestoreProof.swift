public import WotsCore

/// What a client signs with the restore key (`SecretKeys.restoreKey()`) to fetch its sealed private record:
/// `"wots-restore-v1\0" || u16 len || relay id || u16 len || nonce || u16 len || nickname (UTF-8)`, pure Ed25519.
public enum RestoreProof {
    public static let label: [UInt8] = Array("wots-restore-v1".utf8) + [0]

    /// The signed bytes.
    /// - Throws: `WotsError.malformed` when the relay id or nonce is empty or longer than 65,535 bytes.
    public static func signedBytes(relayID: [UInt8], nonce: [UInt8], nickname: Nickname) throws -> [UInt8] {
        var name = ByteWriter(capacity: 2 + nickname.value.utf8.count)
        name.write(uint16Prefixed: Array(nickname.value.utf8))
        return try ChallengeStatement.bytes(label: Self.label, relayID: relayID, nonce: nonce, subject: name.bytes)
    }

    /// Whether `signature` proves knowledge of the secret whose restore public key is `secretVerifier`.
    public static func verify(
        signature: [UInt8],
        secretVerifier: [UInt8],
        relayID: [UInt8],
        nonce: [UInt8],
        nickname: Nickname
    ) -> Bool {
        guard let key = try? Ed25519PublicKey(rawRepresentation: secretVerifier),
            let message = try? Self.signedBytes(relayID: relayID, nonce: nonce, nickname: nickname)
        else { return false }
        return key.isValidSignature(signature, for: message)
    }
}
