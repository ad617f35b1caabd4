import Foundation
import Testing
import WotsCore
import WotsCrypto
import WotsTransparency

/// The published vector `schema/vectors/checkpoint-v1.json`, also checked by `scripts/check_signed_note.py` with
/// Python's `cryptography` following only the C2SP specifications and SECURITY.md.
@Suite struct CheckpointVectorTests {
    struct Inclusion: Codable, Equatable {
        var leafIndex: UInt64
        var treeSize: UInt64
        var proof: [String]
    }

    struct Consistency: Codable, Equatable {
        var oldSize: UInt64
        var newSize: UInt64
        var oldRootHash: String
        var proof: [String]
    }

    struct Vector: Codable {
        var description: String
        var testSeed: String
        var origin: String
        var verifierKey: String
        var leaves: [String]
        var size: UInt64
        var rootHash: String
        var note: String
        var inclusion: Inclusion
        var consistency: Consistency
    }

    /// A TEST key, published in the vector: SHA-256 of this label is the Ed25519 seed. Never use it for a real log.
    static let seed = SHA256.hash(Array("wots transparency TEST log key v1 (published, never use)".utf8))
    static let origin = "wots.example/test-log"

    static func leaves() -> [[UInt8]] { (0..<13).map { Array("wots test leaf \($0)".utf8) } }

    /// What the vector must hold, computed afresh: checkpoint, proofs and all.
    static func expected() async throws -> Vector {
        let key = try LogKey(name: Self.origin, privateKey: try Ed25519PrivateKey(seed: Self.seed))
        let log = InMemoryMerkleLog(leafHashes: Self.leaves().map(MerkleTree.leafHash))
        let checkpoint = try Checkpoint(origin: Self.origin, size: log.size, rootHash: log.rootHash)
        let inclusion = try await MerkleTree.inclusionProof(forLeafAt: 5, treeSize: 13, reader: log)
        let consistency = try await MerkleTree.consistencyProof(from: 7, to: 13, reader: log)
        return Vector(
            description: "A checkpoint of a 13-leaf log signed by a TEST Ed25519 key whose seed is published here: "
                + "never trust it. Leaves are made-up bytes (base64), not Wots log entries.",
            testSeed: Hex.encode(Self.seed),
            origin: Self.origin,
            verifierKey: key.verifierKey,
            leaves: Self.leaves().map { Data($0).base64EncodedString() },
            size: log.size,
            rootHash: log.rootHash.base64,
            note: try checkpoint.signed(with: key).formatted,
            inclusion: Inclusion(leafIndex: 5, treeSize: 13, proof: inclusion.hashes.map(\.base64)),
            consistency: Consistency(
                oldSize: 7,
                newSize: 13,
                oldRootHash: try await MerkleTree.rootHash(treeSize: 7, reader: log).base64,
                proof: consistency.hashes.map(\.base64)
            )
        )
    }

    @Test func publishedCheckpointVerifiesAndIsReproducedExactly() async throws {
        let vector = try JSONDecoder().decode(Vector.self, from: try Data(contentsOf: try Locations.checkpointVector()))
        let verifier = try NoteVerifier(verifierKey: vector.verifierKey)
        let checkpoint = try Checkpoint(
            verifyingNote: Array(vector.note.utf8),
            origin: vector.origin,
            verifiers: [verifier]
        )
        #expect(checkpoint.size == vector.size && checkpoint.rootHash.base64 == vector.rootHash)
        #expect(checkpoint.origin == vector.origin && checkpoint.extensions.isEmpty)

        // Ed25519 is deterministic: the published seed must sign the same checkpoint to the same bytes.
        #expect(vector.testSeed == Hex.encode(Self.seed))
        let expected = try await Self.expected()
        #expect(vector.note == expected.note)
        #expect(vector.verifierKey == expected.verifierKey)
        #expect(vector.leaves == expected.leaves && vector.rootHash == expected.rootHash)
        #expect(vector.inclusion == expected.inclusion && vector.consistency == expected.consistency)

        let leaf = MerkleTree.leafHash(Self.leaves()[5])
        let proof = InclusionProof(
            leafIndex: 5,
            treeSize: 13,
            hashes: try vector.inclusion.proof.map(MerkleHash.init(base64:))
        )
        try proof.verify(leafHash: leaf, rootHash: checkpoint.rootHash)
    }

    @Test(.enabled(if: ProcessInfo.processInfo.environment["WOTS_WRITE_VECTORS"] == "1"))
    func writeVector() async throws {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        try (encoder.encode(try await Self.expected()) + Data("\n".utf8)).write(to: try Locations.checkpointVector())
    }
}
