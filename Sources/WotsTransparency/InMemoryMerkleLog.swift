/// A Merkle log kept in memory: every complete-subtree hash, and the frontier.
///
/// For tests and benchmarks, and as the reference a storage backend's reader must agree with. About 64 bytes of
/// hashes per leaf (one leaf hash, and on average one interior node).
public struct InMemoryMerkleLog: MerkleNodeReader, Sendable {
    /// The right edge, with the current size.
    public private(set) var frontier = MerkleFrontier()
    // Every node in the order the appends completed them, which `position(of:)` computes from an address.
    private var nodes: [MerkleHash] = []

    /// An empty log.
    public init() {}

    /// A log holding `leafHashes`, in order.
    public init(leafHashes: some Sequence<MerkleHash>) {
        for leafHash in leafHashes {
            self.append(leafHash: leafHash)
        }
    }

    /// Number of leaves.
    public var size: UInt64 { self.frontier.size }

    /// The current tree head.
    public var rootHash: MerkleHash { self.frontier.rootHash }

    /// Appends the leaf with hash `leafHash` and keeps every node it completes.
    /// - Returns: the completed nodes, as `MerkleFrontier.append(leafHash:)` returns them.
    @discardableResult
    public mutating func append(leafHash: MerkleHash) -> [MerkleNode] {
        let completed = self.frontier.append(leafHash: leafHash)
        for node in completed {
            precondition(Self.position(of: node.address) == UInt64(self.nodes.count), "nodes out of order")
            self.nodes.append(node.hash)
        }
        return completed
    }

    /// The stored hash of the node at `address`, or nil if that subtree is not complete yet.
    public func hash(at address: NodeAddress) -> MerkleHash? {
        guard address.leaves.upperBound <= self.size else { return nil }
        return self.nodes[Int(Self.position(of: address))]
    }

    /// Where node `address` sits in completion order. The log is complete through leaf n − 1 = (index+1)·2^level − 1
    /// when the node completes: by then 2n − popcount(n) nodes exist, and the leaf's last merge (at level
    /// trailingZeros(n)) came after this node's.
    private static func position(of address: NodeAddress) -> UInt64 {
        let leaves = address.leaves.upperBound
        let completedSoFar = 2 * leaves - UInt64(leaves.nonzeroBitCount)
        return completedSoFar - 1 - UInt64(leaves.trailingZeroBitCount - address.level)
    }

    public func hashes(at addresses: [NodeAddress]) async throws -> [NodeAddress: MerkleHash] {
        var found: [NodeAddress: MerkleHash] = [:]
        for address in addresses {
            if let hash = self.hash(at: address) { found[address] = hash }
        }
        return found
    }

    /// A log of `leafCount` made-up leaves, for tests and benchmarks: leaf `i` is the 8-byte big-endian `i`.
    public static func synthetic(leafCount: UInt64) -> InMemoryMerkleLog {
        var log = InMemoryMerkleLog()
        for index in 0..<leafCount {
            log.append(leafHash: MerkleTree.leafHash(Self.syntheticLeaf(index)))
        }
        return log
    }

    /// Leaf `index` of a `synthetic(leafCount:)` log.
    public static func syntheticLeaf(_ index: UInt64) -> [UInt8] {
        withUnsafeBytes(of: index.bigEndian) { Array($0) }
    }
}
