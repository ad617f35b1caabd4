/// Why a client operation failed: a relay refusal, an unreachable relay, or a local problem.
///
/// Equality compares the code. The reason is one human sentence naming the value and the rule; it never
/// contains a secret, a key or a session.
public struct ClientError: Error, Sendable, Hashable, CustomStringConvertible {
    /// A stable snake_case code; relay refusals keep the relay's own code (`nickname_taken`, `unknown_nickname`, …).
    public struct Code: Sendable, Hashable, CustomStringConvertible {
        private let name: String

        /// A code as the relay spelled it.
        public init(relayCode: String) { self.name = relayCode }

        private init(_ name: String) { self.name = name }

        /// No connection to the relay could be made, or it broke before an answer.
        public static let relayUnreachable = Code("relay_unreachable")
        /// The relay answered something that is not the API.
        public static let invalidResponse = Code("invalid_response")
        /// A contact's published key is not the pinned one.
        public static let keyChanged = Code("key_changed")
        /// The home directory holds no account.
        public static let notRegistered = Code("not_registered")
        /// The home directory holds an account already.
        public static let alreadyRegistered = Code("already_registered")
        /// The secret does not open the private keys.
        public static let wrongSecret = Code("wrong_secret")
        /// No account has this nickname.
        public static let unknownNickname = Code("unknown_nickname")
        /// The secret could not be read (no terminal, no file, mismatch when typed twice).
        public static let secretUnavailable = Code("secret_unavailable")
        /// Something the user gave breaks a rule.
        public static let invalidInput = Code("invalid_input")
        /// The local home directory could not be read or written, or is unsafe.
        public static let localStore = Code("local_store")
        /// The live stream failed.
        public static let stream = Code("stream_failed")
        /// The relay refused the session (unknown token, expired session).
        public static let unauthorized = Code("unauthorized")

        public var description: String { self.name }
    }

    public let code: Code
    public let reason: String
    /// The HTTP status of a relay refusal, if the error came from one.
    public let status: Int?
    public let file: String
    public let line: Int

    public init(_ code: Code, _ reason: String, status: Int? = nil, file: String = #fileID, line: Int = #line) {
        self.code = code
        self.reason = reason
        self.status = status
        self.file = file
        self.line = line
    }

    public var description: String { self.reason }

    public static func == (lhs: ClientError, rhs: ClientError) -> Bool { lhs.code == rhs.code }
    public func hash(into hasher: inout Hasher) { hasher.combine(self.code) }
}
