import WotsCore

/// Where the log auditor reads a relay's transparency log and directory lookups: the relay itself.
protocol LogSource: Sendable {
    /// Names the relay in messages and keys the kept view.
    var baseURL: String { get }
    func identity() async throws -> RelayIdentity
    func lookup(nickname: Nickname) async throws -> DirectoryLookup
    func lookup(token: Token) async throws -> DirectoryLookup
    func checkpointNote() async throws -> [UInt8]
    func logEntries(start: UInt64, end: UInt64) async throws -> LogEntriesResponse
    func inclusionProof(index: UInt64, size: UInt64) async throws -> InclusionProofResponse
    func consistencyProof(from: UInt64, to: UInt64) async throws -> ConsistencyProofResponse
}

extension RelayClient: LogSource {}
