/// A value that does not satisfy Wots' rules: a nickname, token, cursor, envelope or avatar.
///
/// Equality compares the code only, so callers can match on what went wrong without caring about wording.
public struct DomainError: Error, Sendable, Hashable, CustomStringConvertible {
    public struct Code: Sendable, Hashable, CustomStringConvertible {
        private enum Value: String, Sendable {
            case invalidNickname = "invalid_nickname"
            case invalidToken = "invalid_token"
            case invalidFingerprint = "invalid_fingerprint"
            case invalidCursor = "invalid_cursor"
            case invalidPageLimit = "invalid_limit"
            case invalidAvatar = "invalid_avatar"
            case malformedEnvelope = "malformed_envelope"
            case unsupportedVersion = "unsupported_version"
        }
        private let value: Value
        private init(_ value: Value) { self.value = value }

        public static let invalidNickname = Code(.invalidNickname)
        public static let invalidToken = Code(.invalidToken)
        public static let invalidFingerprint = Code(.invalidFingerprint)
        public static let invalidCursor = Code(.invalidCursor)
        public static let invalidPageLimit = Code(.invalidPageLimit)
        public static let invalidAvatar = Code(.invalidAvatar)
        public static let malformedEnvelope = Code(.malformedEnvelope)
        public static let unsupportedVersion = Code(.unsupportedVersion)

        /// The stable, snake_case name used in API error bodies.
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

    public static func == (lhs: DomainError, rhs: DomainError) -> Bool { lhs.code == rhs.code }
    public func hash(into hasher: inout Hasher) { hasher.combine(self.code) }
}
