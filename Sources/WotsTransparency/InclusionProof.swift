/// An RFC 9162 inclusion proof (audit path): the hashes that, with one leaf hash, rebuild the tree head.
///
/// `hashes` is ordered as RFC 9162 section 2.1.3.1 builds it: the leaf's sibling first, the root's other child last.
public struct InclusionProof: Sendable, Hashable {
    /// The position of the proven leaf, from 0.
    public let leafIndex: UInt64
    /// The size of the tree whose head the proof leads to.
    public let treeSize: UInt64
    /// The proof's node hashes, lowest first.
    public let hashes: [MerkleHash]

    public init(leafIndex: UInt64, treeSize: UInt64, hashes: [MerkleHash]) {
        self.leafIndex = leafIndex
        self.treeSize = treeSize
        self.hashes = hashes
    }

    /// Checks that `leafHash` is leaf `leafIndex` of the tree of `treeSize` leaves whose head is `rootHash`.
    /// - Throws: `invalid_proof` naming the check that failed.
    public func verify(leafHash: MerkleHash, rootHash: MerkleHash) throws {
        guard try self.rootHash(leafHash: leafHash) == rootHash else {
            throw Refuse.invalidProof("the proof for leaf \(self.leafIndex) does not lead to the expected tree head")
        }
    }

    /// Checks an inclusion proof exactly as received: hashes of any length are refused rather than trusted.
    /// - Throws: `invalid_proof` naming the check that failed.
    public static func verify(
        leafHash: [UInt8],
        leafIndex: UInt64,
        treeSize: UInt64,
        proof: [[UInt8]],
        rootHash: [UInt8]
    ) throws {
        let leaf = try ProofHashes.hash(leafHash, "the leaf hash")
        let root = try ProofHashes.hash(rootHash, "the tree head")
        let proof = InclusionProof(leafIndex: leafIndex, treeSize: treeSize, hashes: try ProofHashes.hashes(proof))
        try proof.verify(leafHash: leaf, rootHash: root)
    }

    /// The tree head this proof leads to from `leafHash` (RFC 9162 section 2.1.3.2, steps 1–4).
    /// - Throws: `invalid_proof` if the index is outside the tree or the proof has the wrong length.
    public func rootHash(leafHash: MerkleHash) throws -> MerkleHash {
        guard self.leafIndex < self.treeSize else {
            throw Refuse.invalidProof("leaf index \(self.leafIndex) is not below tree size \(self.treeSize)")
        }
        var fn = self.leafIndex
        var sn = self.treeSize - 1
        var hash = leafHash
        for sibling in self.hashes {
            guard sn != 0 else { throw self.wrongLength("more") }
            if fn & 1 == 1 || fn == sn {
                hash = MerkleTree.nodeHash(sibling, hash)
                // Climb past the levels where this node is a lone right-edge node with no sibling of its own.
                while fn & 1 == 0 && fn != 0 {
                    fn >>= 1
                    sn >>= 1
                }
            } else {
                hash = MerkleTree.nodeHash(hash, sibling)
            }
            fn >>= 1
            sn >>= 1
        }
        guard sn == 0 else { throw self.wrongLength("fewer") }
        return hash
    }

    private func wrongLength(_ comparison: String) -> any Error {
        Refuse.invalidProof(
            "the proof has \(comparison) hashes (\(self.hashes.count)) than the path from leaf \(self.leafIndex) "
                + "to the head of a tree of \(self.treeSize) leaves"
        )
    }
}

/// Turning hashes as received into `MerkleHash`es, refusing wrong lengths as a failed proof.
enum ProofHashes {
    static func hash(_ bytes: [UInt8], _ what: String) throws -> MerkleHash {
        guard bytes.count == MerkleHash.byteCount else {
            throw Refuse.invalidProof("\(what) is \(bytes.count) bytes (must be \(MerkleHash.byteCount))")
        }
        return try MerkleHash(bytes: bytes)
    }

    static func hashes(_ proof: [[UInt8]]) throws -> [MerkleHash] {
        try proof.enumerated().map { try Self.hash($1, "proof hash \($0)") }
    }
}
