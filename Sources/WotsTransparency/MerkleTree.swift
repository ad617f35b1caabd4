import WotsCrypto

/// The RFC 9162 (section 2.1) Merkle tree: hashing, tree heads, and proofs built from stored subtree hashes.
///
/// Leaves are hashed as `SHA-256(0x00 || leaf)` and interior nodes as `SHA-256(0x01 || left || right)`; the two
/// prefixes keep a leaf from ever passing for a node.
public enum MerkleTree {
    /// The head of the empty tree: SHA-256 of no bytes.
    public static let emptyRootHash: MerkleHash = Self.digest(of: UnsafeRawBufferPointer(start: nil, count: 0))

    /// `SHA-256(0x00 || leaf)`: the hash of one log entry as it sits in the tree.
    public static func leafHash(_ leaf: [UInt8]) -> MerkleHash {
        withUnsafeTemporaryAllocation(byteCount: leaf.count + 1, alignment: 8) { input in
            let base = input.baseAddress!
            base.storeBytes(of: 0x00, as: UInt8.self)
            leaf.withUnsafeBytes { bytes in
                if let source = bytes.baseAddress { (base + 1).copyMemory(from: source, byteCount: bytes.count) }
            }
            return Self.digest(of: UnsafeRawBufferPointer(input))
        }
    }

    /// `SHA-256(0x01 || left || right)`: the hash of an interior node from its two children.
    public static func nodeHash(_ left: MerkleHash, _ right: MerkleHash) -> MerkleHash {
        // Millions of these build a log, so the buffer is addressed directly rather than through slices.
        withUnsafeTemporaryAllocation(byteCount: 1 + 2 * MerkleHash.byteCount, alignment: 8) { input in
            let base = input.baseAddress!
            base.storeBytes(of: 0x01, as: UInt8.self)
            left.store(into: base + 1)
            right.store(into: base + 1 + MerkleHash.byteCount)
            return Self.digest(of: UnsafeRawBufferPointer(input))
        }
    }

    /// The Merkle tree head MTH of the leaves whose hashes are given, in order (RFC 9162 section 2.1.1).
    ///
    /// For n > 1 leaves the tree splits at k, the largest power of two below n: MTH = node(MTH(first k),
    /// MTH(the rest)). Costs n − 1 node hashes; a log that grows one leaf at a time keeps a `MerkleFrontier`.
    public static func rootHash(leafHashes: [MerkleHash]) -> MerkleHash {
        guard !leafHashes.isEmpty else { return Self.emptyRootHash }
        return Self.subtreeHash(leafHashes[...])
    }

    private static func subtreeHash(_ leaves: ArraySlice<MerkleHash>) -> MerkleHash {
        guard leaves.count > 1 else { return leaves[leaves.startIndex] }
        let split = leaves.startIndex + Int(largestPowerOfTwo(below: UInt64(leaves.count)))
        return Self.nodeHash(Self.subtreeHash(leaves[..<split]), Self.subtreeHash(leaves[split...]))
    }

    /// The largest power of two strictly below `count`, which must be at least 2.
    static func largestPowerOfTwo(below count: UInt64) -> UInt64 {
        precondition(count >= 2, "only a tree of two or more leaves splits")
        return 1 << (63 - (count - 1).leadingZeroBitCount)
    }

    private static func digest(of input: UnsafeRawBufferPointer) -> MerkleHash {
        withUnsafeTemporaryAllocation(byteCount: MerkleHash.byteCount, alignment: 8) { digest in
            SHA256.hash(input, into: digest)
            return MerkleHash(loading: UnsafeRawPointer(digest.baseAddress!))
        }
    }
}
