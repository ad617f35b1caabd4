import Testing
import WotsCore
import WotsTransparency

/// For random trees of up to 4,096 leaves: every proof the builder makes verifies, and every one-bit change to a
/// proof, leaf or head, and every other leaf index or tree head, is refused.
@Suite struct ProofPropertyTests {
    static let log = InMemoryMerkleLog.synthetic(leafCount: 4_096)
    static let leafHashes = syntheticLeafHashes(4_096)

    static func root(_ size: UInt64) async throws -> MerkleHash {
        try await MerkleTree.rootHash(treeSize: size, reader: Self.log)
    }

    static func refused(_ body: () throws -> Void) -> Bool {
        do {
            try body()
            return false
        } catch {
            return (error as? WotsError)?.code == .invalidProof
        }
    }

    @Test(arguments: [1, 2, 3])
    func inclusionProofsVerifyAndEveryTamperingIsRefused(seed: UInt64) async throws {
        var generator = SeededGenerator(seed: seed)
        for _ in 0..<60 {
            let size = UInt64.random(in: 1...4_096, using: &generator)
            let index = UInt64.random(in: 0..<size, using: &generator)
            let leaf = Self.leafHashes[Int(index)]
            let root = try await Self.root(size)
            let proof = try await MerkleTree.inclusionProof(forLeafAt: index, treeSize: size, reader: Self.log)
            let context = "seed \(seed): leaf \(index) of \(size)"
            #expect(throws: Never.self, "\(context)") { try proof.verify(leafHash: leaf, rootHash: root) }

            for position in proof.hashes.indices {
                var hashes = proof.hashes
                hashes[position] = hashes[position].flipping(bit: Int.random(in: 0..<256, using: &generator))
                let tampered = InclusionProof(leafIndex: index, treeSize: size, hashes: hashes)
                #expect(
                    Self.refused { try tampered.verify(leafHash: leaf, rootHash: root) },
                    "\(context), hash \(position)"
                )
            }
            let bit = Int.random(in: 0..<256, using: &generator)
            #expect(Self.refused { try proof.verify(leafHash: leaf.flipping(bit: bit), rootHash: root) }, "\(context)")
            #expect(Self.refused { try proof.verify(leafHash: leaf, rootHash: root.flipping(bit: bit)) }, "\(context)")
            if size > 1 {
                let neighbour = Self.leafHashes[Int((index + 1) % size)]
                #expect(Self.refused { try proof.verify(leafHash: neighbour, rootHash: root) }, "\(context)")
            }

            for otherIndex in Set([index ^ 1, index &+ 1, index &- 1, UInt64.random(in: 0..<size, using: &generator)])
            where otherIndex != index && otherIndex < size + 2 {
                let moved = InclusionProof(leafIndex: otherIndex, treeSize: size, hashes: proof.hashes)
                #expect(
                    Self.refused { try moved.verify(leafHash: leaf, rootHash: root) },
                    "\(context) as leaf \(otherIndex)"
                )
            }
            // A proof only holds against the head of its own tree size: the head is what commits to the size.
            for otherSize in Set([size + 1, size - 1, size * 2, UInt64.random(in: 1...4_096, using: &generator)])
            where otherSize != size && otherSize >= 1 && otherSize <= 4_096 {
                let claimed = InclusionProof(leafIndex: index, treeSize: otherSize, hashes: proof.hashes)
                let otherRoot = try await Self.root(otherSize)
                #expect(
                    Self.refused { try claimed.verify(leafHash: leaf, rootHash: otherRoot) },
                    "\(context) as size \(otherSize)"
                )
            }
        }
    }

    @Test(arguments: [4, 5, 6])
    func consistencyProofsVerifyAndEveryTamperingIsRefused(seed: UInt64) async throws {
        var generator = SeededGenerator(seed: seed)
        for _ in 0..<60 {
            let newSize = UInt64.random(in: 2...4_096, using: &generator)
            let oldSize = UInt64.random(in: 1..<newSize, using: &generator)
            let (oldRoot, newRoot) = (try await Self.root(oldSize), try await Self.root(newSize))
            let proof = try await MerkleTree.consistencyProof(from: oldSize, to: newSize, reader: Self.log)
            let context = "seed \(seed): \(oldSize) to \(newSize)"
            #expect(throws: Never.self, "\(context)") { try proof.verify(oldRoot: oldRoot, newRoot: newRoot) }

            for position in proof.hashes.indices {
                var hashes = proof.hashes
                hashes[position] = hashes[position].flipping(bit: Int.random(in: 0..<256, using: &generator))
                let tampered = ConsistencyProof(oldSize: oldSize, newSize: newSize, hashes: hashes)
                #expect(
                    Self.refused { try tampered.verify(oldRoot: oldRoot, newRoot: newRoot) },
                    "\(context), hash \(position)"
                )
            }
            let bit = Int.random(in: 0..<256, using: &generator)
            #expect(
                Self.refused { try proof.verify(oldRoot: oldRoot.flipping(bit: bit), newRoot: newRoot) },
                "\(context)"
            )
            #expect(
                Self.refused { try proof.verify(oldRoot: oldRoot, newRoot: newRoot.flipping(bit: bit)) },
                "\(context)"
            )
            #expect(Self.refused { try proof.verify(oldRoot: newRoot, newRoot: oldRoot) }, "\(context)")
            #expect(
                Self.refused {
                    try ConsistencyProof(oldSize: oldSize, newSize: newSize, hashes: Array(proof.hashes.dropLast()))
                        .verify(oldRoot: oldRoot, newRoot: newRoot)
                }
            )
            #expect(
                Self.refused {
                    try ConsistencyProof(oldSize: oldSize, newSize: newSize, hashes: proof.hashes + [oldRoot]).verify(
                        oldRoot: oldRoot,
                        newRoot: newRoot
                    )
                }
            )

            for otherOld in Set([oldSize + 1, oldSize - 1, UInt64.random(in: 1..<newSize, using: &generator)])
            where otherOld != oldSize && otherOld >= 1 && otherOld < newSize {
                let claimed = ConsistencyProof(oldSize: otherOld, newSize: newSize, hashes: proof.hashes)
                let otherRoot = try await Self.root(otherOld)
                #expect(
                    Self.refused { try claimed.verify(oldRoot: otherRoot, newRoot: newRoot) },
                    "\(context) from \(otherOld)"
                )
            }
            for otherNew in Set([newSize + 1, newSize - 1, UInt64.random(in: 1...4_096, using: &generator)])
            where otherNew != newSize && otherNew > oldSize && otherNew <= 4_096 {
                let claimed = ConsistencyProof(oldSize: oldSize, newSize: otherNew, hashes: proof.hashes)
                let otherRoot = try await Self.root(otherNew)
                #expect(
                    Self.refused { try claimed.verify(oldRoot: oldRoot, newRoot: otherRoot) },
                    "\(context) to \(otherNew)"
                )
            }
        }
    }

    @Test func everySingleBitOfSomeProofsLeavesAndHeadsMatters() async throws {
        for (index, size): (UInt64, UInt64) in [(5, 13), (0, 4_096), (4_095, 4_096), (1_234, 3_001)] {
            let proof = try await MerkleTree.inclusionProof(forLeafAt: index, treeSize: size, reader: Self.log)
            let (leaf, root) = (Self.leafHashes[Int(index)], try await Self.root(size))
            for bit in 0..<256 {
                for position in proof.hashes.indices {
                    var hashes = proof.hashes
                    hashes[position] = hashes[position].flipping(bit: bit)
                    let tampered = InclusionProof(leafIndex: index, treeSize: size, hashes: hashes)
                    #expect(Self.refused { try tampered.verify(leafHash: leaf, rootHash: root) })
                }
                #expect(Self.refused { try proof.verify(leafHash: leaf.flipping(bit: bit), rootHash: root) })
                #expect(Self.refused { try proof.verify(leafHash: leaf, rootHash: root.flipping(bit: bit)) })
            }
        }
        for (oldSize, newSize): (UInt64, UInt64) in [(7, 13), (1_024, 4_096), (1_000, 3_001)] {
            let proof = try await MerkleTree.consistencyProof(from: oldSize, to: newSize, reader: Self.log)
            let (oldRoot, newRoot) = (try await Self.root(oldSize), try await Self.root(newSize))
            for bit in 0..<256 {
                for position in proof.hashes.indices {
                    var hashes = proof.hashes
                    hashes[position] = hashes[position].flipping(bit: bit)
                    let tampered = ConsistencyProof(oldSize: oldSize, newSize: newSize, hashes: hashes)
                    #expect(Self.refused { try tampered.verify(oldRoot: oldRoot, newRoot: newRoot) })
                }
                #expect(Self.refused { try proof.verify(oldRoot: oldRoot.flipping(bit: bit), newRoot: newRoot) })
                #expect(Self.refused { try proof.verify(oldRoot: oldRoot, newRoot: newRoot.flipping(bit: bit)) })
            }
        }
    }
}
