public import WotsCore

/// Sealed private records by token. The repository stores what it cannot open.
public protocol PrivateRecordRepository: Sendable {
    /// Stores a new record.
    /// - Throws: `WotsError.tokenTaken` when the token already has one.
    func create(_ record: PrivateRecord) async throws

    /// Stores a record, replacing any earlier one for the token (key rotation).
    func put(_ record: PrivateRecord) async throws

    /// The record for a token, nil when there is none.
    func record(for token: Token) async throws -> PrivateRecord?

    /// Removes the record for a token; does nothing when there is none.
    func delete(token: Token) async throws
}
