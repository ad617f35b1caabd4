public import Foundation
import Synchronization
public import WotsCore
public import WotsTransparency

/// A `TransparencyLogRepository` in memory. `InMemoryDirectoryRepository` appends to it while holding its own lock,
/// so the log and the directory change together.
public final class InMemoryTransparencyLog: TransparencyLogRepository {
    private struct State {
        var tree = InMemoryMerkleLog()
        var leaves: [[UInt8]] = []
        var latestByToken: [Token: UInt64] = [:]
    }

    private let state = Mutex(State())

    /// An empty log.
    public init() {}

    /// Appends `event` as the next leaf, numbering it after the token's previous leaf.
    /// - Returns: the new leaf's index.
    @discardableResult
    package func append(_ event: DirectoryLogEvent) throws -> UInt64 {
        try self.state.withLock { state in
            let append = try LogAppend(
                event,
                previous: state.latestByToken[event.token],
                after: state.tree.frontier
            )
            state.tree.append(leafHash: MerkleTree.leafHash(append.leaf))
            state.leaves.append(append.leaf)
            state.latestByToken[event.token] = append.index
            return append.index
        }
    }

    public func size() async throws -> UInt64 {
        self.state.withLock { $0.tree.size }
    }

    public func leaves(in range: Range<UInt64>) async throws -> [[UInt8]] {
        try self.state.withLock { state in
            guard range.upperBound <= state.tree.size else { throw leavesOutOfRange(range, size: state.tree.size) }
            return Array(state.leaves[Int(range.lowerBound)..<Int(range.upperBound)])
        }
    }

    public func latestLeafIndex(of token: Token) async throws -> UInt64? {
        self.state.withLock { $0.latestByToken[token] }
    }

    public func logUnloggedEntries(at now: Date) async throws -> Int { 0 }

    public func hashes(at addresses: [NodeAddress]) async throws -> [NodeAddress: MerkleHash] {
        let tree = self.state.withLock { $0.tree }
        return try await tree.hashes(at: addresses)
    }
}
