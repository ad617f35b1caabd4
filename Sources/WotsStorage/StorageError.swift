/// Why a repository refused or failed an operation. Equality compares the code.
public struct StorageError: Error, Sendable, Hashable, CustomStringConvertible {
    public struct Code: Sendable, Hashable, CustomStringConvertible {
        private enum Value: String, Sendable {
            case nicknameTaken = "nickname_taken"
            case tokenTaken = "token_taken"
            case notFound = "not_found"
            case messageIDConflict = "message_id_conflict"
            case mailboxFull = "mailbox_full"
            case invalidArgument = "invalid_argument"
            case unavailable = "storage_unavailable"
            case corrupted = "storage_corrupted"
        }
        private let value: Value
        private init(_ value: Value) { self.value = value }

        /// The nickname (ignoring case) belongs to another account, or to a deleted one (tombstone).
        public static let nicknameTaken = Code(.nicknameTaken)
        /// The token is registered already, or was registered by a deleted account.
        public static let tokenTaken = Code(.tokenTaken)
        public static let notFound = Code(.notFound)
        /// The sender used this message id before for a different envelope.
        public static let messageIDConflict = Code(.messageIDConflict)
        /// The recipient's mailbox holds `mailboxCapacity` messages already.
        public static let mailboxFull = Code(.mailboxFull)
        public static let invalidArgument = Code(.invalidArgument)
        /// The database could not be reached or refused the operation.
        public static let unavailable = Code(.unavailable)
        /// Stored data could not be decoded.
        public static let corrupted = Code(.corrupted)

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

    public static func == (lhs: StorageError, rhs: StorageError) -> Bool { lhs.code == rhs.code }
    public func hash(into hasher: inout Hasher) { hasher.combine(self.code) }
}
