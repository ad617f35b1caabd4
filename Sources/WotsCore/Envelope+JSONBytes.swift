extension Envelope {
    /// Appends the envelope's JSON form, byte for byte what `WireCoding.makeEncoder()` writes for it.
    package func appendJSON(to json: inout JSONBytes) {
        let header = self.header
        json.raw("{\"ciphertext\":")
        json.base64(self.ciphertext)
        if header.version != 1 {
            json.raw(",\"expiresAt\":")
            json.integer(header.expiresAtMilliseconds)
        }
        json.raw(",\"id\":")
        json.plainString(header.messageID.lowercasedString)
        json.raw(",\"nonce\":")
        json.base64(self.nonce)
        json.raw(",\"recipient\":")
        json.token(header.recipient)
        json.raw(",\"recipientFingerprint\":")
        json.fingerprint(header.recipientFingerprint)
        json.raw(",\"sender\":")
        json.token(header.sender)
        json.raw(",\"senderFingerprint\":")
        json.fingerprint(header.senderFingerprint)
        json.raw(",\"sentAt\":")
        json.integer(header.sentAtMilliseconds)
        json.raw(",\"signature\":")
        json.base64(self.signature)
        json.raw(",\"version\":")
        json.integer(header.version)
        json.raw(",\"wrappedKey\":")
        json.base64(self.wrappedKey)
        json.raw("}")
    }
}
