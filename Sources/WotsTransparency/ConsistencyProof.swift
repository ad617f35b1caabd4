/// An RFC 9162 consistency proof: the hashes that show the tree of `oldSize` leaves is a prefix of the tree of
/// `newSize` leaves, so the log only appended in between.
///
/// `hashes` is ordered as RFC 9162 section 2.1.4.1 builds it (SUBPROOF's innermost hash first).
public struct ConsistencyProof: Sendable, Hashable {
    /// The size of the earlier tree.
    public let oldSize: UInt64
    /// The size of the later tree.
    public let newSize: UInt64
    /// The proof's node hashes.
    public let hashes: [MerkleHash]

    public init(oldSize: UInt64, newSize: UInt64, hashes: [MerkleHash]) {
        self.oldSize = oldSize
        self.newSize = newSize
        self.hashes = hashes
    }

    /// Checks that the tree with head `oldRoot` at `oldSize` is a prefix of the tree with head `newRoot` at `newSize`.
    ///
    /// Equal sizes need an empty proof and equal heads. An old size of 0 is refused: every tree extends the empty
    /// tree, so such a proof would show nothing, and accepting it would hide a client's mistake.
    /// - Throws: `invalid_proof` naming the check that failed.
    public func verify(oldRoot: MerkleHash, newRoot: MerkleHash) throws {
        try Self.verify(
            oldSize: self.oldSize,
            newSize: self.newSize,
            proof: self.hashes.map(\.bytes),
            oldRoot: oldRoot.bytes,
            newRoot: newRoot.bytes
        )
    }

    /// Checks a consistency proof exactly as received (RFC 9162 section 2.1.4.2); hashes of any length other than
    /// 32 bytes are refused, except that equal sizes only compare the two heads as given.
    /// - Throws: `invalid_proof` naming the check that failed.
    public static func verify(
        oldSize: UInt64,
        newSize: UInt64,
        proof: [[UInt8]],
        oldRoot: [UInt8],
        newRoot: [UInt8]
    ) throws {
        guard oldSize > 0 else {
            throw Refuse.invalidProof(
                "old tree size is 0: every tree extends the empty tree, there is nothing to prove"
            )
        }
        guard oldSize <= newSize else {
            throw Refuse.invalidProof("old tree size \(oldSize) is larger than new tree size \(newSize)")
        }
        if oldSize == newSize {
            guard proof.isEmpty else {
                throw Refuse.invalidProof(
                    "the sizes are equal, so the proof must be empty (it has \(proof.count) hashes)"
                )
            }
            guard oldRoot == newRoot else { throw Refuse.invalidProof("the sizes are equal but the tree heads differ") }
            return
        }
        guard !proof.isEmpty else {
            throw Refuse.invalidProof("the proof is empty but tree sizes \(oldSize) and \(newSize) differ")
        }
        let old = try ProofHashes.hash(oldRoot, "the old tree head")
        let new = try ProofHashes.hash(newRoot, "the new tree head")
        let roots = try Self.rootHashes(
            oldSize: oldSize,
            newSize: newSize,
            proof: try ProofHashes.hashes(proof),
            oldRoot: old
        )
        guard roots.old == old else { throw Refuse.invalidProof("the proof does not lead to the old tree head") }
        guard roots.new == new else { throw Refuse.invalidProof("the proof does not lead to the new tree head") }
    }

    /// RFC 9162 section 2.1.4.2, steps 2–6, for 0 < oldSize < newSize and a non-empty proof.
    private static func rootHashes(
        oldSize: UInt64,
        newSize: UInt64,
        proof: [MerkleHash],
        oldRoot: MerkleHash
    ) throws -> (old: MerkleHash, new: MerkleHash) {
        // An old tree that is one complete subtree is its own first proof element, so the proof leaves it out.
        let path = oldSize.nonzeroBitCount == 1 ? [oldRoot] + proof : proof
        var fn = oldSize - 1
        var sn = newSize - 1
        while fn & 1 == 1 {
            fn >>= 1
            sn >>= 1
        }
        var fr = path[0]
        var sr = path[0]
        for hash in path.dropFirst() {
            guard sn != 0 else { throw Self.wrongLength(proof.count, "more", oldSize, newSize) }
            if fn & 1 == 1 || fn == sn {
                fr = MerkleTree.nodeHash(hash, fr)
                sr = MerkleTree.nodeHash(hash, sr)
                while fn & 1 == 0 && fn != 0 {
                    fn >>= 1
                    sn >>= 1
                }
            } else {
                sr = MerkleTree.nodeHash(sr, hash)
            }
            fn >>= 1
            sn >>= 1
        }
        guard sn == 0 else { throw Self.wrongLength(proof.count, "fewer", oldSize, newSize) }
        return (fr, sr)
    }

    private static func wrongLength(_ count: Int, _ comparison: String, _ oldSize: UInt64, _ newSize: UInt64)
        -> any Error
    {
        Refuse.invalidProof(
            "the proof has \(comparison) hashes (\(count)) than a consistency proof from \(oldSize) to \(newSize) leaves"
        )
    }
}
