import Foundation
import Testing
import WotsCore
import WotsStorage

/// Small builders for storage tests. Storage never checks crypto, so keys, ciphertexts and signatures are random.
enum TestValues {
    static func randomBytes(_ count: Int) -> [UInt8] {
        (0..<count).map { _ in UInt8.random(in: .min ... .max) }
    }

    static func token() -> Token {
        try! Token(bytes: self.randomBytes(16))
    }

    static func fingerprint() -> Fingerprint {
        try! Fingerprint(bytes: self.randomBytes(Fingerprint.byteCount))
    }

    static func publicKeys() -> PublicKeys {
        PublicKeys(signing: self.randomBytes(294), encryption: self.randomBytes(294))
    }

    /// A time with whole milliseconds, which every backend keeps exactly.
    static func time(_ milliseconds: Int64 = 1_700_000_000_123) -> Date {
        Date(timeIntervalSince1970: Double(milliseconds) / 1000)
    }

    static func entry(_ nickname: String, token: Token = TestValues.token()) -> DirectoryEntry {
        DirectoryEntry(
            token: token,
            nickname: try! Nickname(nickname),
            publicKeys: self.publicKeys(),
            fingerprint: self.fingerprint(),
            registeredAt: self.time()
        )
    }

    static func record(_ token: Token = TestValues.token(), avatar: Avatar? = .preset(.tiger)) -> PrivateRecord {
        PrivateRecord(
            token: token,
            keyDerivation: KeyDerivationParameters(salt: self.randomBytes(16)),
            sealedPrivateKeys: self.randomBytes(2_400),
            secretVerifier: self.randomBytes(32),
            avatar: avatar
        )
    }

    static func envelope(from sender: Token, to recipient: Token, id: UUID = UUID()) -> Envelope {
        Envelope(
            header: EnvelopeHeader(
                messageID: id,
                sender: sender,
                senderFingerprint: self.fingerprint(),
                recipient: recipient,
                recipientFingerprint: self.fingerprint(),
                sentAtMilliseconds: 1_700_000_000_000
            ),
            wrappedKey: self.randomBytes(256),
            nonce: self.randomBytes(Envelope.nonceSize),
            ciphertext: self.randomBytes(256 + 16),
            signature: self.randomBytes(256)
        )
    }

    /// A version-2 envelope whose header's `expiresAt` is `expiresAt` milliseconds (0: never).
    static func envelope(from sender: Token, to recipient: Token, expiresAt: UInt64) -> Envelope {
        var envelope = self.envelope(from: sender, to: recipient)
        envelope.header.version = 2
        envelope.header.expiresAtMilliseconds = expiresAt
        return envelope
    }
}

/// Two entries are the same account with the same keys; times may differ below a millisecond (database precision).
func expectSame(
    _ actual: DirectoryEntry?,
    _ expected: DirectoryEntry,
    sourceLocation: SourceLocation = #_sourceLocation
) {
    guard let actual else {
        Issue.record("no entry for \(expected.nickname)", sourceLocation: sourceLocation)
        return
    }
    #expect(actual.token == expected.token, sourceLocation: sourceLocation)
    #expect(actual.nickname == expected.nickname, sourceLocation: sourceLocation)
    #expect(actual.publicKeys == expected.publicKeys, sourceLocation: sourceLocation)
    #expect(actual.fingerprint == expected.fingerprint, sourceLocation: sourceLocation)
    #expect(
        abs(actual.registeredAt.timeIntervalSince(expected.registeredAt)) < 0.001,
        sourceLocation: sourceLocation
    )
}

/// Runs `body` and checks it throws a `WotsError` with `code`; returns the error for more checks.
@discardableResult
func expectStorageError(
    _ code: ErrorCode,
    sourceLocation: SourceLocation = #_sourceLocation,
    _ body: () async throws -> Void
) async -> WotsError? {
    do {
        try await body()
        Issue.record("expected WotsError \(code), nothing was thrown", sourceLocation: sourceLocation)
        return nil
    } catch let error as WotsError {
        #expect(error.code == code, "\(error.reason)", sourceLocation: sourceLocation)
        return error
    } catch {
        Issue.record("expected WotsError \(code), got \(error)", sourceLocation: sourceLocation)
        return nil
    }
}
