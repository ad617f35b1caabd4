public import WotsCore
import WotsCrypto

extension DirectoryLogEvent {
    /// A rotation's attestation: the old key's signature then the new key's, each u16-length-prefixed.
    public static func rotationAttestation(oldKeySignature: [UInt8], newKeySignature: [UInt8]) -> [UInt8] {
        var writer = ByteWriter(capacity: 4 + oldKeySignature.count + newKeySignature.count)
        writer.write(uint16Prefixed: oldKeySignature)
        writer.write(uint16Prefixed: newKeySignature)
        return writer.bytes
    }

    /// Checks that the user made this event: a registration's proof of possession under the registered keys for
    /// `relayID`; a rotation's signatures by the previous keys (`previousKeys`, from the token's previous leaf) and
    /// by the new ones.
    /// - Throws: `bad_signature` when the attestation is missing or does not verify; `malformed` when `previousKeys`
    ///   is missing for a rotation; deletions and withdrawals carry no user signature and always pass.
    public func verifyAttestation(relayID: [UInt8], previousKeys: PublicKeys?) throws {
        switch self.kind {
        case .registered:
            guard
                RegistrationProof.verify(
                    signature: self.attestation,
                    relayID: relayID,
                    token: self.token,
                    nickname: self.nickname,
                    publicKeys: self.publicKeys
                )
            else {
                throw Refuse.badSignature(
                    "the log's registration of \"\(self.nickname)\" is not signed by its own key for this relay"
                )
            }
        case .keysRotated:
            guard let previousKeys else {
                throw Refuse.malformed("checking a key rotation needs the keys of the token's previous leaf")
            }
            var reader = ByteReader(self.attestation)
            guard let old = reader.readUInt16Prefixed(), let new = reader.readUInt16Prefixed(), reader.remaining == 0,
                RotationProof(oldKeySignature: old, newKeySignature: new).verify(
                    token: self.token,
                    oldKeys: previousKeys,
                    newKeys: self.publicKeys
                )
            else {
                throw Refuse.badSignature(
                    "the log's key rotation of \"\(self.nickname)\" is not signed by both its old and new keys"
                )
            }
        case .deleted, .withdrawn:
            return
        }
    }
}
