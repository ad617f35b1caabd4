/// The right edge of a Merkle log (a compact range over `0..<size`): the hashes of the complete subtrees that
/// together hold every leaf, one per set bit of `size`, largest first.
///
/// It is all an appender needs. Appending a leaf merges equal-sized subtrees at the right end, so it costs at most
/// ⌈log2 n⌉ node hashes, names every node it completes (for storage to keep) and never reads the tree.
public struct MerkleFrontier: Sendable, Hashable {
    /// Number of leaves so far.
    public private(set) var size: UInt64
    /// Hashes of the complete subtrees covering `0..<size`, largest (leftmost) first: `size.nonzeroBitCount` of them.
    public private(set) var hashes: [MerkleHash]

    /// The frontier of the empty log.
    public init() {
        self.size = 0
        self.hashes = []
    }

    /// Restores a frontier from stored node hashes, in the order of `nodeAddresses(forSize:)`.
    /// - Throws: `malformed` unless there is one hash per set bit of `size`.
    public init(size: UInt64, hashes: [MerkleHash]) throws {
        guard hashes.count == size.nonzeroBitCount else {
            throw Refuse.malformed(
                "a frontier of \(size) leaves has \(size.nonzeroBitCount) subtrees, not \(hashes.count)"
            )
        }
        self.size = size
        self.hashes = hashes
    }

    /// The addresses of the complete subtrees that make up the frontier of a log of `size` leaves, largest first:
    /// read them in one go to restore the frontier with `init(size:hashes:)`.
    public static func nodeAddresses(forSize size: UInt64) -> [NodeAddress] {
        NodeAddress.covering(0..<size)
    }

    /// The frontier's subtrees with their addresses.
    public var nodes: [MerkleNode] {
        zip(Self.nodeAddresses(forSize: self.size), self.hashes).map { MerkleNode(address: $0, hash: $1) }
    }

    /// The tree head of the log at `size` (the empty-tree hash when empty). Costs one node hash per subtree.
    public var rootHash: MerkleHash {
        guard var root = self.hashes.last else { return MerkleTree.emptyRootHash }
        for left in self.hashes.dropLast().reversed() {
            root = MerkleTree.nodeHash(left, root)
        }
        return root
    }

    /// Appends one leaf hash.
    ///
    /// - Returns: every node this leaf completes, to store: the leaf itself at level 0, then each parent it
    ///   finishes, lowest first.
    public mutating func append(leafHash: MerkleHash) -> [MerkleNode] {
        precondition(self.size < UInt64.max, "a log holds at most 2^64 − 1 leaves")
        var completed = [MerkleNode(address: NodeAddress(level: 0, index: self.size), hash: leafHash)]
        var hash = leafHash
        var level = 0
        // Each trailing one bit of the old size is a subtree the size of the growing one, waiting to its left.
        while (self.size >> level) & 1 == 1 {
            hash = MerkleTree.nodeHash(self.hashes.removeLast(), hash)
            level += 1
            completed.append(MerkleNode(address: NodeAddress(level: level, index: self.size >> level), hash: hash))
        }
        self.hashes.append(hash)
        self.size += 1
        return completed
    }

    /// What appending a leaf yields: the new frontier, the nodes to store, and the new tree head on demand.
    public struct Appended: Sendable {
        /// The frontier after the append.
        public let frontier: MerkleFrontier
        /// The nodes the leaf completed, as `append(leafHash:)` returns them.
        public let completedNodes: [MerkleNode]
        /// The tree head after the append, computed when asked (appending a batch needs only the last one).
        public var rootHash: MerkleHash { self.frontier.rootHash }
    }

    /// This frontier with one more leaf, without changing this one.
    public func appending(leafHash: MerkleHash) -> Appended {
        var frontier = self
        let completed = frontier.append(leafHash: leafHash)
        return Appended(frontier: frontier, completedNodes: completed)
    }
}
