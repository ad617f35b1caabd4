import Foundation

extension Envelope {
    /// A whole input that is one envelope in the plain subset (`POST /v1/messages`' body), read as `scan` reads it;
    /// nil for anything else, which the caller gives to Foundation's decoder.
    package static func scan(_ bytes: [UInt8]) -> Envelope? {
        var scanner = JSONScanner(bytes)
        guard let envelope = Self.scan(&scanner), scanner.isAtEnd() else { return nil }
        return envelope
    }

    /// The envelope's JSON form read with `JSONScanner`: the same envelope Foundation's decoder reads, or nil for any
    /// input outside the plain subset or not a valid envelope (a repeated or unknown key too), which the caller then
    /// gives to Foundation's decoder for the precise error.
    package static func scan(_ scanner: inout JSONScanner) -> Envelope? {
        var fields = ScannedEnvelopeFields()
        guard scanner.object({ key, scanner in fields.read(key, from: &scanner) }) else { return nil }
        return try? fields.envelope()
    }
}

/// The members read so far, each at most once; strings are kept as their bytes in the frame, since every one of them
/// is decoded from a subset of ASCII (anything else is refused there).
private struct ScannedEnvelopeFields {
    var version: UInt64?
    var sentAt: UInt64?
    var expiresAt: UInt64?
    var id: ArraySlice<UInt8>?
    var sender: ArraySlice<UInt8>?
    var senderFingerprint: ArraySlice<UInt8>?
    var recipient: ArraySlice<UInt8>?
    var recipientFingerprint: ArraySlice<UInt8>?
    var wrappedKey: ArraySlice<UInt8>?
    var nonce: ArraySlice<UInt8>?
    var ciphertext: ArraySlice<UInt8>?
    var signature: ArraySlice<UInt8>?

    mutating func read(_ key: String, from scanner: inout JSONScanner) -> Bool {
        switch key {
        case "version": Self.readOnce(&self.version, &scanner) { $0.unsignedInteger() }
        case "sentAt": Self.readOnce(&self.sentAt, &scanner) { $0.unsignedInteger() }
        case "expiresAt": Self.readOnce(&self.expiresAt, &scanner) { $0.unsignedInteger() }
        case "id": Self.readOnce(&self.id, &scanner) { $0.stringBytes() }
        case "sender": Self.readOnce(&self.sender, &scanner) { $0.stringBytes() }
        case "senderFingerprint": Self.readOnce(&self.senderFingerprint, &scanner) { $0.stringBytes() }
        case "recipient": Self.readOnce(&self.recipient, &scanner) { $0.stringBytes() }
        case "recipientFingerprint": Self.readOnce(&self.recipientFingerprint, &scanner) { $0.stringBytes() }
        case "wrappedKey": Self.readOnce(&self.wrappedKey, &scanner) { $0.stringBytes() }
        case "nonce": Self.readOnce(&self.nonce, &scanner) { $0.stringBytes() }
        case "ciphertext": Self.readOnce(&self.ciphertext, &scanner) { $0.stringBytes() }
        case "signature": Self.readOnce(&self.signature, &scanner) { $0.stringBytes() }
        default: false
        }
    }

    private static func readOnce<Value>(
        _ field: inout Value?,
        _ scanner: inout JSONScanner,
        with read: (inout JSONScanner) -> Value?
    ) -> Bool {
        guard field == nil, let value = read(&scanner) else { return false }
        field = value
        return true
    }

    func envelope() throws -> Envelope? {
        guard let wideVersion = self.version, let version = UInt8(exactly: wideVersion), let sentAtValue = self.sentAt,
            let id = self.id.flatMap({ UUID(textUTF8: $0) }),
            let sender = self.sender.flatMap({ Token(base32UTF8: $0) }),
            let senderFingerprint = self.senderFingerprint.flatMap({ Fingerprint(hexUTF8: $0) }),
            let recipient = self.recipient.flatMap({ Token(base32UTF8: $0) }),
            let recipientFingerprint = self.recipientFingerprint.flatMap({ Fingerprint(hexUTF8: $0) })
        else { return nil }
        try EnvelopeHeader.checkSupported(version)
        let sentAt = try EnvelopeHeader.checkedSentAt(sentAtValue)
        let expiresAt: UInt64
        switch (version, self.expiresAt) {
        case (1, nil): expiresAt = 0
        case (1, .some), (_, nil): return nil
        case (_, .some(let value)): expiresAt = try EnvelopeHeader.checkedExpiresAt(value, sentAt: sentAt)
        }
        guard let wrappedKey = self.wrappedKey.flatMap(Base64Text.decode),
            let nonce = self.nonce.flatMap(Base64Text.decode),
            let ciphertext = self.ciphertext.flatMap(Base64Text.decode),
            let signature = self.signature.flatMap(Base64Text.decode),
            nonce.count == Envelope.nonceSize, wrappedKey.count <= UInt16.max, signature.count <= UInt16.max
        else { return nil }
        let header = EnvelopeHeader(
            version: version,
            messageID: id,
            sender: sender,
            senderFingerprint: senderFingerprint,
            recipient: recipient,
            recipientFingerprint: recipientFingerprint,
            sentAtMilliseconds: sentAt,
            expiresAtMilliseconds: expiresAt
        )
        return Envelope(
            header: header,
            wrappedKey: wrappedKey,
            nonce: nonce,
            ciphertext: ciphertext,
            signature: signature
        )
    }
}
