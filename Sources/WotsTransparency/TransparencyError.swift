/// A transparency-log value, proof or signed note that was refused.
///
/// Equality compares the code only, so callers match on what went wrong without caring about wording. Reasons name
/// the value and the rule; they never contain private key material.
public struct TransparencyError: Error, Sendable, Hashable, CustomStringConvertible {
    public struct Code: Sendable, Hashable, CustomStringConvertible {
        private enum Value: String, Sendable {
            case malformed = "malformed"
            case invalidProof = "invalid_proof"
            case outOfRange = "out_of_range"
            case missingNode = "missing_node"
            case invalidKey = "invalid_key"
            case badSignature = "bad_signature"
            case unverified = "unverified"
            case wrongOrigin = "wrong_origin"
        }
        private let value: Value
        private init(_ value: Value) { self.value = value }

        /// Text or bytes that do not follow the layout in SECURITY.md (note, checkpoint, verifier key, hash).
        public static let malformed = Code(.malformed)
        /// A proof that does not prove what it is checked for; the reason names the check that failed.
        public static let invalidProof = Code(.invalidProof)
        /// A leaf index or tree size that no proof can exist for (an index past the end, sizes out of order).
        public static let outOfRange = Code(.outOfRange)
        /// Storage did not return a node hash a proof needs.
        public static let missingNode = Code(.missingNode)
        /// A key name or verifier key that cannot be used.
        public static let invalidKey = Code(.invalidKey)
        /// A signature from a trusted key that does not verify.
        public static let badSignature = Code(.badSignature)
        /// A note that carries no signature from any trusted key.
        public static let unverified = Code(.unverified)
        /// A checkpoint from a log other than the one expected.
        public static let wrongOrigin = Code(.wrongOrigin)

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

    public static func == (lhs: TransparencyError, rhs: TransparencyError) -> Bool { lhs.code == rhs.code }
    public func hash(into hasher: inout Hasher) { hasher.combine(self.code) }
}

/// Every error this module throws is made here, so moving to a shared error type touches this one place.
enum Refuse {
    static func malformed(_ reason: String, file: String = #fileID, line: Int = #line) -> any Error {
        TransparencyError(.malformed, reason, file: file, line: line)
    }

    static func invalidProof(_ reason: String, file: String = #fileID, line: Int = #line) -> any Error {
        TransparencyError(.invalidProof, reason, file: file, line: line)
    }

    static func outOfRange(_ reason: String, file: String = #fileID, line: Int = #line) -> any Error {
        TransparencyError(.outOfRange, reason, file: file, line: line)
    }

    static func missingNode(_ reason: String, file: String = #fileID, line: Int = #line) -> any Error {
        TransparencyError(.missingNode, reason, file: file, line: line)
    }

    static func invalidKey(_ reason: String, file: String = #fileID, line: Int = #line) -> any Error {
        TransparencyError(.invalidKey, reason, file: file, line: line)
    }

    static func badSignature(_ reason: String, file: String = #fileID, line: Int = #line) -> any Error {
        TransparencyError(.badSignature, reason, file: file, line: line)
    }

    static func unverified(_ reason: String, file: String = #fileID, line: Int = #line) -> any Error {
        TransparencyError(.unverified, reason, file: file, line: line)
    }

    static func wrongOrigin(_ reason: String, file: String = #fileID, line: Int = #line) -> any Error {
        TransparencyError(.wrongOrigin, reason, file: file, line: line)
    }
}
