import Foundation

extension Envelope {
    /// The envelope's JSON form read with `JSONScanner`: the same envelope Foundation's decoder reads, or nil for any
    /// input outside the plain subset or not a valid envelope (a repeated or unknown key too), which the caller then
    /// gives to Foundation's decoder for the precise error.
    package static func scan(_ scanner: inout JSONScanner) -> Envelope? {
        var fields = ScannedEnvelopeFields()
        guard scanner.object({ key, scanner in fields.read(key, from: &scanner) }) else { return nil }
        return try? fields.envelope()
    }
}

private struct ScannedEnvelopeFields {
    var numbers: [String: UInt64] = [:]
    var strings: [String: String] = [:]

    static let numberKeys: Set<String> = ["version", "sentAt", "expiresAt"]
    static let stringKeys: Set<String> = [
        "id", "sender", "senderFingerprint", "recipient", "recipientFingerprint", "wrappedKey", "nonce", "ciphertext",
        "signature",
    ]

    mutating func read(_ key: String, from scanner: inout JSONScanner) -> Bool {
        if Self.numberKeys.contains(key) {
            guard self.numbers[key] == nil, let value = scanner.unsignedInteger() else { return false }
            self.numbers[key] = value
            return true
        }
        guard Self.stringKeys.contains(key), self.strings[key] == nil, let value = scanner.string() else {
            return false
        }
        self.strings[key] = value
        return true
    }

    func envelope() throws -> Envelope? {
        guard let wideVersion = self.numbers["version"], let version = UInt8(exactly: wideVersion),
            let sentAtValue = self.numbers["sentAt"], self.strings.count == Self.stringKeys.count,
            let id = UUID(text: self.strings["id"]!)
        else { return nil }
        try EnvelopeHeader.checkSupported(version)
        let sentAt = try EnvelopeHeader.checkedSentAt(sentAtValue)
        let expiresAt: UInt64
        switch (version, self.numbers["expiresAt"]) {
        case (1, nil): expiresAt = 0
        case (1, .some), (_, nil): return nil
        case (_, .some(let value)): expiresAt = try EnvelopeHeader.checkedExpiresAt(value, sentAt: sentAt)
        }
        guard let wrappedKey = self.base64("wrappedKey"), let nonce = self.base64("nonce"),
            let ciphertext = self.base64("ciphertext"), let signature = self.base64("signature"),
            nonce.count == Envelope.nonceSize, wrappedKey.count <= UInt16.max, signature.count <= UInt16.max
        else { return nil }
        let header = EnvelopeHeader(
            version: version,
            messageID: id,
            sender: try Token(self.strings["sender"]!),
            senderFingerprint: try Fingerprint(hex: self.strings["senderFingerprint"]!),
            recipient: try Token(self.strings["recipient"]!),
            recipientFingerprint: try Fingerprint(hex: self.strings["recipientFingerprint"]!),
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

    private func base64(_ key: String) -> [UInt8]? {
        self.strings[key].flatMap { Data(base64Encoded: $0) }.map { Array($0) }
    }
}
