import Foundation
import WotsCore
import WotsStorage

extension TestValues {
    /// A group message body to `recipients` with a `ciphertextSize`-byte ciphertext, and one slot each. Storage never
    /// checks crypto, so hashes, keys and the signature are random.
    static func groupMessage(
        from sender: Token,
        to recipients: [Token],
        ciphertextSize: Int = 1_024 + 16,
        expiresAt: UInt64 = 0,
        id: UUID = UUID()
    ) -> (envelope: GroupEnvelope, slots: [GroupSlot]) {
        let sorted = recipients.sorted()
        let header = GroupEnvelopeHeader(
            messageID: id,
            sender: sender,
            senderFingerprint: self.fingerprint(),
            groupID: try! GroupID(bytes: self.randomBytes(16)),
            membershipVersion: 1,
            membershipStateHash: self.randomBytes(32),
            senderSequence: 1,
            sentAtMilliseconds: 1_700_000_000_000,
            expiresAtMilliseconds: expiresAt,
            keyCommitment: self.randomBytes(32),
            recipients: sorted.map {
                GroupRecipient(token: $0, fingerprint: self.fingerprint(), slotHash: self.randomBytes(32))
            }
        )
        let envelope = GroupEnvelope(
            header: header,
            nonce: self.randomBytes(12),
            ciphertext: self.randomBytes(ciphertextSize),
            signature: self.randomBytes(256)
        )
        return (envelope, sorted.map { GroupSlot(recipient: $0, wrappedKey: self.randomBytes(256)) })
    }
}
