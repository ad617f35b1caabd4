/// A cryptographic operation that failed or refused its input.
///
/// Equality compares the code only, so callers match on what went wrong without caring about wording.
/// Reasons name the rule that was broken; they never contain key material, secrets or plaintext.
public struct CryptoError: Error, Sendable, Hashable, CustomStringConvertible {
    public struct Code: Sendable, Hashable, CustomStringConvertible {
        private enum Value: String, Sendable {
            case badSignature = "bad_signature"
            case notForMe = "not_for_me"
            case senderKeyMismatch = "sender_key_mismatch"
            case malformed = "malformed"
            case unsupportedVersion = "unsupported_version"
            case decryptionFailed = "decryption_failed"
            case wrongSecret = "wrong_secret"
            case invalidKey = "invalid_key"
            case library = "crypto_library"
        }
        private let value: Value
        private init(_ value: Value) { self.value = value }

        /// A signature does not verify under the key it should have been made with.
        public static let badSignature = Code(.badSignature)
        /// The envelope's recipient token or recipient key fingerprint does not name the opener.
        public static let notForMe = Code(.notForMe)
        /// The sender fingerprint in the header is not the fingerprint of the sender keys given.
        public static let senderKeyMismatch = Code(.senderKeyMismatch)
        /// Bytes that do not follow the layout in SECURITY.md.
        public static let malformed = Code(.malformed)
        /// A layout version this build does not read.
        public static let unsupportedVersion = Code(.unsupportedVersion)
        /// The content key could not be unwrapped or the AES-GCM tag did not match.
        public static let decryptionFailed = Code(.decryptionFailed)
        /// The secret does not open the sealed private keys.
        public static let wrongSecret = Code(.wrongSecret)
        /// A key that is not a well-formed RSA-2048 key of the expected kind.
        public static let invalidKey = Code(.invalidKey)
        /// OpenSSL itself failed; the reason carries OpenSSL's error string.
        public static let library = Code(.library)

        /// The stable, snake_case name used in API error bodies and logs.
        public var description: String { self.value.rawValue }
    }

    public let code: Code
    public let reason: String
    public let file: String
    public let line: Int

    public init(_ code: Code, _ reason: String, file: String = #fileID, line: Int = #line) {
        self.code = code
        self.reason = reason
        self.file = file
        self.line = line
    }

    public var description: String { self.reason }

    public static func == (lhs: CryptoError, rhs: CryptoError) -> Bool { lhs.code == rhs.code }
    public func hash(into hasher: inout Hasher) { hasher.combine(self.code) }
}
