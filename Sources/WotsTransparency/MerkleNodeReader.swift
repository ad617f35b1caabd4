/// Storage that hands out stored complete-subtree hashes, many per call.
///
/// Proof building asks once per proof, with every address the proof needs (O(log n) of them), so a database-backed
/// reader can answer with one query.
public protocol MerkleNodeReader: Sendable {
    /// The stored hashes of `addresses`. An address with no stored node is left out of the result; the proof
    /// builder then throws `missing_log_node` naming it.
    func hashes(at addresses: [NodeAddress]) async throws -> [NodeAddress: MerkleHash]
}

extension MerkleTree {
    /// The inclusion proof for leaf `index` in the tree of `treeSize` leaves, read from `reader` in one batch.
    /// - Throws: `proof_out_of_range` unless `index < treeSize`; `.missingLogNode` if the reader lacks a node;
    ///   whatever the reader throws.
    public static func inclusionProof(
        forLeafAt index: UInt64,
        treeSize: UInt64,
        reader: some MerkleNodeReader
    ) async throws -> InclusionProof {
        let addresses = try Self.requiredNodes(forInclusionOf: index, treeSize: treeSize)
        let nodes = try await reader.hashes(at: addresses)
        return try Self.inclusionProof(forLeafAt: index, treeSize: treeSize, nodes: nodes)
    }

    /// The consistency proof from `oldSize` to `newSize` leaves, read from `reader` in one batch.
    /// - Throws: `proof_out_of_range` unless `0 < oldSize <= newSize`; `.missingLogNode` if the reader lacks
    ///   a node; whatever the reader throws.
    public static func consistencyProof(
        from oldSize: UInt64,
        to newSize: UInt64,
        reader: some MerkleNodeReader
    ) async throws -> ConsistencyProof {
        let addresses = try Self.requiredNodes(forConsistencyFrom: oldSize, to: newSize)
        let nodes = addresses.isEmpty ? [:] : try await reader.hashes(at: addresses)
        return try Self.consistencyProof(from: oldSize, to: newSize, nodes: nodes)
    }

    /// The tree head of `treeSize` leaves, read from `reader` in one batch.
    /// - Throws: `missing_log_node` if the reader lacks a node; whatever the reader throws.
    public static func rootHash(treeSize: UInt64, reader: some MerkleNodeReader) async throws -> MerkleHash {
        let addresses = Self.requiredNodes(forRootOf: treeSize)
        let nodes = addresses.isEmpty ? [:] : try await reader.hashes(at: addresses)
        return try Self.rootHash(treeSize: treeSize, nodes: nodes)
    }
}
