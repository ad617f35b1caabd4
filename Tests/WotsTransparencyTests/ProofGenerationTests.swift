import Testing
import WotsCore
import WotsTransparency

/// Proofs assembled from stored complete subtrees must be exactly RFC 9162's PATH and PROOF, computed here by the
/// recursive definitions over every leaf.
@Suite struct ProofGenerationTests {
    static let leafHashes = syntheticLeafHashes(300)
    static let log = InMemoryMerkleLog(leafHashes: leafHashes)
    static let naive = NaiveMerkleTree(leafHashes: leafHashes)

    /// A handful of positions in `0..<count`: both ends, the middle, the power-of-two boundaries and random ones.
    static func samples(below count: Int, using generator: inout SeededGenerator) -> Set<Int> {
        var samples: Set<Int> = [0, count - 1, count / 2, max(0, count - 2)]
        var power = 1
        while power < count {
            samples.formUnion([power - 1, power].filter { $0 < count })
            power *= 2
        }
        for _ in 0..<3 { samples.insert(Int.random(in: 0..<count, using: &generator)) }
        return samples
    }

    static func nodes(_ addresses: [NodeAddress]) -> [NodeAddress: MerkleHash] {
        Dictionary(uniqueKeysWithValues: addresses.map { ($0, Self.log.hash(at: $0)!) })
    }

    @Test func inclusionProofsEqualTheRecursiveDefinitionForEverySizeUpTo300() throws {
        var generator = SeededGenerator(seed: 9162)
        for size in 1...300 {
            let root = Self.naive.head(0..<size)
            for index in Self.samples(below: size, using: &generator) {
                let addresses = try MerkleTree.requiredNodes(forInclusionOf: UInt64(index), treeSize: UInt64(size))
                #expect(Set(addresses).count == addresses.count, "a node is asked for twice")
                let proof = try MerkleTree.inclusionProof(
                    forLeafAt: UInt64(index),
                    treeSize: UInt64(size),
                    nodes: Self.nodes(addresses)
                )
                #expect(proof.hashes == Self.naive.path(index, 0..<size), "leaf \(index) of \(size)")
                #expect(throws: Never.self) { try proof.verify(leafHash: Self.leafHashes[index], rootHash: root) }
            }
        }
    }

    @Test func consistencyProofsEqualTheRecursiveDefinitionForEverySizeUpTo300() throws {
        var generator = SeededGenerator(seed: 6962)
        for newSize in 1...300 {
            let newRoot = Self.naive.head(0..<newSize)
            for oldSize in Self.samples(below: newSize, using: &generator).map({ $0 + 1 }) {
                let addresses = try MerkleTree.requiredNodes(forConsistencyFrom: UInt64(oldSize), to: UInt64(newSize))
                #expect(Set(addresses).count == addresses.count, "a node is asked for twice")
                let proof = try MerkleTree.consistencyProof(
                    from: UInt64(oldSize),
                    to: UInt64(newSize),
                    nodes: Self.nodes(addresses)
                )
                #expect(proof.hashes == Self.naive.proof(oldSize, newSize), "\(oldSize) to \(newSize)")
                #expect(throws: Never.self) {
                    try proof.verify(oldRoot: Self.naive.head(0..<oldSize), newRoot: newRoot)
                }
            }
        }
    }

    @Test func proofsForTheImpossibleAreRefusedBeforeAnyRead() throws {
        let outOfRange = WotsError(.proofOutOfRange, "")
        #expect(throws: outOfRange) { try MerkleTree.requiredNodes(forInclusionOf: 5, treeSize: 5) }
        #expect(throws: outOfRange) { try MerkleTree.requiredNodes(forInclusionOf: 0, treeSize: 0) }
        #expect(throws: outOfRange) { try MerkleTree.requiredNodes(forConsistencyFrom: 0, to: 5) }
        #expect(throws: outOfRange) { try MerkleTree.requiredNodes(forConsistencyFrom: 6, to: 5) }
        #expect(throws: outOfRange) { try MerkleTree.inclusionProof(forLeafAt: 9, treeSize: 3, nodes: [:]) }
        #expect(try MerkleTree.requiredNodes(forConsistencyFrom: 5, to: 5).isEmpty)
        #expect(try MerkleTree.requiredNodes(forInclusionOf: 0, treeSize: 1).isEmpty)
    }

    @Test func aNodeStorageDidNotReturnIsNamed() async throws {
        #expect(throws: WotsError(.missingLogNode, "")) {
            try MerkleTree.inclusionProof(forLeafAt: 3, treeSize: 7, nodes: [:])
        }
        let young = InMemoryMerkleLog(leafHashes: syntheticLeafHashes(5))
        await #expect(throws: WotsError(.missingLogNode, "")) {
            try await MerkleTree.consistencyProof(from: 3, to: 9, reader: young)
        }
    }

    @Test func theLargestTreesAreStillAddressable() throws {
        let size = UInt64.max
        let inclusion = try MerkleTree.requiredNodes(forInclusionOf: size - 1, treeSize: size)
        #expect(inclusion.count <= 2 * 64)
        let consistency = try MerkleTree.requiredNodes(forConsistencyFrom: size / 3, to: size)
        #expect(consistency.count <= 2 * 64 + 1)
        #expect(MerkleFrontier.nodeAddresses(forSize: size).count == 64)
    }
}
