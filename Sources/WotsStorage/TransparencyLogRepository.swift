public import Foundation
public import WotsCore
public import WotsTransparency

/// The relay's transparency log of directory changes, as storage keeps it: every leaf, and every complete-subtree
/// hash (so any proof is O(log n) reads).
///
/// Leaves are appended only by the directory and account repositories, in the same transaction as the change they
/// record, so the log and the directory never disagree.
public protocol TransparencyLogRepository: MerkleNodeReader {
    /// Number of leaves.
    func size() async throws -> UInt64

    /// The leaf bytes of `range`, in order.
    /// - Throws: `proof_out_of_range` when `range` reaches past the log's size.
    func leaves(in range: Range<UInt64>) async throws -> [[UInt8]]

    /// The index of the newest leaf about `token`, nil when the log has none.
    func latestLeafIndex(of token: Token) async throws -> UInt64?

    /// Logs the directory entries no leaf speaks of yet (registered before the log existed): a `registered` leaf
    /// each, then a `deleted` one for a tombstone. Oldest registration first; unattested (the user's proofs were not
    /// kept then).
    /// - Returns: how many leaves it appended; 0 once everything is logged.
    @discardableResult
    func logUnloggedEntries(at now: Date) async throws -> Int
}

extension TransparencyLogRepository {
    /// The tree head at the current size, with that size.
    public func treeHead() async throws -> (size: UInt64, rootHash: MerkleHash) {
        let size = try await self.size()
        return (size, try await MerkleTree.rootHash(treeSize: size, reader: self))
    }
}

/// The work every backend does to append one leaf, given the log's current right edge.
package struct LogAppend: Sendable {
    package let index: UInt64
    package let leaf: [UInt8]
    package let completedNodes: [MerkleNode]

    /// Appends `event`, with `previousLeafIndex` set to `previous`, after `frontier`.
    package init(_ event: DirectoryLogEvent, previous: UInt64?, after frontier: MerkleFrontier) throws {
        var event = event
        event.previousLeafIndex = previous
        self.leaf = try event.leafBytes()
        self.index = frontier.size
        self.completedNodes = frontier.appending(leafHash: MerkleTree.leafHash(self.leaf)).completedNodes
    }
}

extension DirectoryLogEvent {
    /// The event `kind` for `entry` at `time`, to be numbered by the appender.
    package init(_ kind: Kind, _ entry: DirectoryEntry, at time: Date, attestation: [UInt8] = []) {
        self.init(
            kind: kind,
            token: entry.token,
            nickname: entry.nickname,
            publicKeys: entry.publicKeys,
            timeMilliseconds: UInt64(max(0, (time.timeIntervalSince1970 * 1000).rounded())),
            previousLeafIndex: nil,
            attestation: attestation
        )
    }
}

/// The error every backend gives for a range of leaves the log does not hold.
package func leavesOutOfRange(_ range: Range<UInt64>, size: UInt64) -> WotsError {
    WotsError(.proofOutOfRange, "leaves \(range.lowerBound)..<\(range.upperBound) reach past the log's \(size) leaves")
}
