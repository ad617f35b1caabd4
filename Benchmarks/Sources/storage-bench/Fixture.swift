import Foundation
import WotsCore

/// Realistically sized stand-ins: storage checks no cryptography, so random bytes of the real sizes will do.
enum Fixture {
    /// An RSA-2048 SubjectPublicKeyInfo in DER is 294 bytes.
    static let publicKeySize = 294
    static let ciphertextSize = 1_024
    static let wrappedKeySize = 256
    static let signatureSize = 256

    /// Entry `index`'s nickname: "u" and 8 hex digits of `index × 2654435761 mod 2³²`, a bijection on 32-bit numbers,
    /// so nicknames are unique and their order is unrelated to insertion order. The PostgreSQL fill computes the same.
    static func nickname(_ index: Int) -> String {
        let scrambled = UInt32(truncatingIfNeeded: UInt64(index) &* 2_654_435_761)
        let hex = String(scrambled, radix: 16)
        return "u" + String(repeating: "0", count: 8 - hex.count) + hex
    }

    static func randomBytes(_ count: Int) -> [UInt8] {
        var generator = SystemRandomNumberGenerator()
        return (0..<count).map { _ in UInt8.random(in: .min ... .max, using: &generator) }
    }

    static func token() -> Token {
        // 16 bytes make a valid token by construction.
        try! Token(bytes: self.randomBytes(16))
    }

    static func fingerprint() -> Fingerprint {
        try! Fingerprint(bytes: self.randomBytes(Fingerprint.byteCount))
    }

    /// Envelopes from one sender to a fixed set of recipients, in turn, each with a fresh message id.
    struct Mail: Sendable {
        let sender = Fixture.token()
        let senderFingerprint = Fixture.fingerprint()
        let recipients: [Token]
        let recipientFingerprint = Fixture.fingerprint()
        let wrappedKey = Fixture.randomBytes(Fixture.wrappedKeySize)
        let nonce = Fixture.randomBytes(Envelope.nonceSize)
        let ciphertext = Fixture.randomBytes(Fixture.ciphertextSize)
        let signature = Fixture.randomBytes(Fixture.signatureSize)

        init(recipients: Int) {
            self.recipients = (0..<recipients).map { _ in Fixture.token() }
        }

        func envelope(_ index: Int) -> Envelope {
            Envelope(
                header: EnvelopeHeader(
                    messageID: UUID(),
                    sender: self.sender,
                    senderFingerprint: self.senderFingerprint,
                    recipient: self.recipients[index % self.recipients.count],
                    recipientFingerprint: self.recipientFingerprint,
                    sentAtMilliseconds: UInt64(Date().timeIntervalSince1970 * 1000)
                ),
                wrappedKey: self.wrappedKey,
                nonce: self.nonce,
                ciphertext: self.ciphertext,
                signature: self.signature
            )
        }
    }

    /// Raw rows for one task: its own recipient, sequences counting up from 1, blobs the size of a serialized envelope.
    struct RawMail: Sendable {
        let recipient = Data(Fixture.randomBytes(16))
        let sender = Data(Fixture.randomBytes(16))
        let envelope = Data(Fixture.randomBytes(Mail(recipients: 1).envelope(0).serializedSize))

        func row(_ index: Int) -> RawRow {
            RawRow(
                recipient: self.recipient,
                sequence: Int64(index) + 1,
                sender: self.sender,
                messageID: UUID(),
                receivedAt: Date(),
                envelope: self.envelope
            )
        }
    }
}
