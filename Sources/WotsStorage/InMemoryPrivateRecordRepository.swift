import Synchronization
public import WotsCore

/// A `PrivateRecordRepository` held in memory, for tests and throwaway relays.
public final class InMemoryPrivateRecordRepository: PrivateRecordRepository {
    private let records = Mutex<[Token: PrivateRecord]>([:])

    /// Creates an empty repository.
    public init() {}

    public func create(_ record: PrivateRecord) async throws {
        try self.records.withLock { records in
            guard records[record.token] == nil else {
                throw WotsError(.tokenTaken, "token \(record.token) has a private record already")
            }
            records[record.token] = record
        }
    }

    public func put(_ record: PrivateRecord) async throws {
        self.records.withLock { $0[record.token] = record }
    }

    public func record(for token: Token) async throws -> PrivateRecord? {
        self.records.withLock { $0[token] }
    }

    public func delete(token: Token) async throws {
        _ = self.records.withLock { $0.removeValue(forKey: token) }
    }
}
