/// Proofs built from stored complete-subtree hashes.
///
/// A proof element is the RFC 9162 hash of a stretch of leaves. Most are complete subtrees, read as they are; at
/// most one per proof sits on the tree's right edge and is incomplete, so it is recomputed from the complete
/// subtrees under it. `requiredNodes` names every stored node a proof needs, so storage can fetch them in one read,
/// and the assembling functions turn what was fetched into the proof.
extension MerkleTree {
    /// The stored nodes an inclusion proof for leaf `index` in the tree of `treeSize` leaves needs: at most
    /// 2·⌈log2 n⌉ of them, in no particular order.
    /// - Throws: `proof_out_of_range` unless `index < treeSize`.
    public static func requiredNodes(forInclusionOf index: UInt64, treeSize: UInt64) throws -> [NodeAddress] {
        try ProofPlan.inclusion(of: index, treeSize: treeSize).flatMap(NodeAddress.covering)
    }

    /// The stored nodes a consistency proof from the tree of `oldSize` leaves to the tree of `newSize` leaves
    /// needs: at most 2·⌈log2 n⌉ + 1 of them, in no particular order.
    /// - Throws: `proof_out_of_range` unless `0 < oldSize <= newSize`.
    public static func requiredNodes(forConsistencyFrom oldSize: UInt64, to newSize: UInt64) throws -> [NodeAddress] {
        try ProofPlan.consistency(from: oldSize, to: newSize).flatMap(NodeAddress.covering)
    }

    /// The stored nodes the tree head of `treeSize` leaves is computed from (the frontier at that size).
    public static func requiredNodes(forRootOf treeSize: UInt64) -> [NodeAddress] {
        NodeAddress.covering(0..<treeSize)
    }

    /// Assembles the RFC 9162 inclusion proof for leaf `index` from the nodes `requiredNodes(forInclusionOf:)` named.
    /// - Throws: `proof_out_of_range` unless `index < treeSize`; `.missingLogNode` if `nodes` lacks one.
    public static func inclusionProof(
        forLeafAt index: UInt64,
        treeSize: UInt64,
        nodes: [NodeAddress: MerkleHash]
    ) throws -> InclusionProof {
        let hashes = try ProofPlan.inclusion(of: index, treeSize: treeSize).map { try Self.hash(of: $0, in: nodes) }
        return InclusionProof(leafIndex: index, treeSize: treeSize, hashes: hashes)
    }

    /// Assembles the RFC 9162 consistency proof from `oldSize` to `newSize` leaves from the nodes
    /// `requiredNodes(forConsistencyFrom:to:)` named.
    /// - Throws: `proof_out_of_range` unless `0 < oldSize <= newSize`; `.missingLogNode` if `nodes` lacks one.
    public static func consistencyProof(
        from oldSize: UInt64,
        to newSize: UInt64,
        nodes: [NodeAddress: MerkleHash]
    ) throws -> ConsistencyProof {
        let hashes = try ProofPlan.consistency(from: oldSize, to: newSize).map { try Self.hash(of: $0, in: nodes) }
        return ConsistencyProof(oldSize: oldSize, newSize: newSize, hashes: hashes)
    }

    /// The tree head of `treeSize` leaves from the nodes `requiredNodes(forRootOf:)` named.
    /// - Throws: `missing_log_node` if `nodes` lacks one.
    public static func rootHash(treeSize: UInt64, nodes: [NodeAddress: MerkleHash]) throws -> MerkleHash {
        guard treeSize > 0 else { return Self.emptyRootHash }
        return try Self.hash(of: 0..<treeSize, in: nodes)
    }

    /// The RFC 9162 hash of `leaves`, folded right to left from the complete subtrees covering them.
    private static func hash(of leaves: Range<UInt64>, in nodes: [NodeAddress: MerkleHash]) throws -> MerkleHash {
        let hashes = try NodeAddress.covering(leaves).map { address in
            guard let hash = nodes[address] else {
                throw Refuse.missingNode("storage returned no hash for node \(address)")
            }
            return hash
        }
        var hash = hashes[hashes.count - 1]
        for left in hashes.dropLast().reversed() {
            hash = Self.nodeHash(left, hash)
        }
        return hash
    }
}

/// Which stretches of leaves a proof's hashes stand for, in proof order, following the recursive definitions of
/// RFC 9162 sections 2.1.3.1 (PATH) and 2.1.4.1 (PROOF and SUBPROOF) without recursing.
enum ProofPlan {
    /// PATH(index, D[0:treeSize]): the sibling of each subtree on the way from the leaf to the root, lowest first.
    static func inclusion(of index: UInt64, treeSize: UInt64) throws -> [Range<UInt64>] {
        guard index < treeSize else {
            throw Refuse.outOfRange("leaf index \(index) is not below tree size \(treeSize)")
        }
        var topDown: [Range<UInt64>] = []
        var subtree: Range<UInt64> = 0..<treeSize
        while subtree.upperBound - subtree.lowerBound > 1 {
            let split =
                subtree.lowerBound + MerkleTree.largestPowerOfTwo(below: subtree.upperBound - subtree.lowerBound)
            if index < split {
                topDown.append(split..<subtree.upperBound)
                subtree = subtree.lowerBound..<split
            } else {
                topDown.append(subtree.lowerBound..<split)
                subtree = split..<subtree.upperBound
            }
        }
        return topDown.reversed()
    }

    /// PROOF(oldSize, D[0:newSize]) = SUBPROOF(oldSize, D[0:newSize], true).
    static func consistency(from oldSize: UInt64, to newSize: UInt64) throws -> [Range<UInt64>] {
        guard oldSize > 0, oldSize <= newSize else {
            throw Refuse.outOfRange(
                "no consistency proof from tree size \(oldSize) to \(newSize) (needs 0 < old size <= new size)"
            )
        }
        var topDown: [Range<UInt64>] = []
        var subtree: Range<UInt64> = 0..<newSize
        // SUBPROOF's flag b: true while the subtree still starts at leaf 0, where the old head is known already.
        var startsAtZero = true
        while subtree.upperBound != oldSize {
            let split =
                subtree.lowerBound + MerkleTree.largestPowerOfTwo(below: subtree.upperBound - subtree.lowerBound)
            if oldSize <= split {
                topDown.append(split..<subtree.upperBound)
                subtree = subtree.lowerBound..<split
            } else {
                topDown.append(subtree.lowerBound..<split)
                subtree = split..<subtree.upperBound
                startsAtZero = false
            }
        }
        // SUBPROOF(m, D[m], false) = {MTH(D[m])}: the old tree's part of this subtree, unless it is the old head.
        let last: [Range<UInt64>] = startsAtZero ? [] : [subtree]
        return last + topDown.reversed()
    }
}
