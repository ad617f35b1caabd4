import Foundation
import Testing
import WotsCore
import WotsTransparency

/// Every inclusion and consistency case of transparency-dev/merkle's published test data, read from
/// `../shared/vectors/merkle/testdata` beside the package. `wantErr: false` must verify, `true` must be refused.
@Suite struct MerkleVectorTests {
    struct InclusionCase: Decodable {
        var leafIdx: UInt64
        var treeSize: UInt64
        var root: String
        var leafHash: String
        var proof: [String]?
        var desc: String
        var wantErr: Bool
    }

    struct ConsistencyCase: Decodable {
        var size1: UInt64
        var size2: UInt64
        var root1: String
        var root2: String
        var proof: [String]?
        var desc: String
        var wantErr: Bool
    }

    /// Every JSON file under `kind`, with its path relative to the test data, sorted.
    static func cases<Case: Decodable>(_ kind: String, as type: Case.Type) throws -> [(String, Case)] {
        let folder = try Locations.merkleVectors().appendingPathComponent(kind)
        let files = try #require(FileManager.default.enumerator(at: folder, includingPropertiesForKeys: nil))
            .compactMap { $0 as? URL }.filter { $0.pathExtension == "json" }
        return try files.map { file in
            (
                file.path.replacingOccurrences(of: folder.path + "/", with: "\(kind)/"),
                try JSONDecoder().decode(Case.self, from: try Data(contentsOf: file))
            )
        }.sorted { $0.0 < $1.0 }
    }

    static func bytes(_ base64: String) throws -> [UInt8] {
        Array(try #require(Data(base64Encoded: base64), "\"\(base64)\" is not base64"))
    }

    @Test func everyInclusionCaseIsDecidedAsPublished() throws {
        let cases = try Self.cases("inclusion", as: InclusionCase.self)
        try #require(cases.count >= 80, "only \(cases.count) inclusion vectors found")
        #expect(cases.contains { !$0.1.wantErr } && cases.contains { $0.1.wantErr })
        for (path, test) in cases {
            let outcome = Result {
                try InclusionProof.verify(
                    leafHash: try Self.bytes(test.leafHash),
                    leafIndex: test.leafIdx,
                    treeSize: test.treeSize,
                    proof: try (test.proof ?? []).map(Self.bytes),
                    rootHash: try Self.bytes(test.root)
                )
            }
            switch outcome {
            case .success: #expect(!test.wantErr, "\(path) (\(test.desc)) verified but must be refused")
            case .failure(let error):
                #expect(test.wantErr, "\(path) (\(test.desc)) was refused: \(error)")
                #expect((error as? WotsError)?.code == .invalidProof, "\(path): \(error)")
            }
        }
    }

    @Test func everyConsistencyCaseIsDecidedAsPublished() throws {
        let cases = try Self.cases("consistency", as: ConsistencyCase.self)
        try #require(cases.count >= 80, "only \(cases.count) consistency vectors found")
        #expect(cases.contains { !$0.1.wantErr } && cases.contains { $0.1.wantErr })
        for (path, test) in cases {
            let outcome = Result {
                try ConsistencyProof.verify(
                    oldSize: test.size1,
                    newSize: test.size2,
                    proof: try (test.proof ?? []).map(Self.bytes),
                    oldRoot: try Self.bytes(test.root1),
                    newRoot: try Self.bytes(test.root2)
                )
            }
            switch outcome {
            case .success: #expect(!test.wantErr, "\(path) (\(test.desc)) verified but must be refused")
            case .failure(let error):
                #expect(test.wantErr, "\(path) (\(test.desc)) was refused: \(error)")
                #expect((error as? WotsError)?.code == .invalidProof, "\(path): \(error)")
            }
        }
    }

    @Test func happyPathProofsAreExactlyTheOnesThisLibraryBuilds() throws {
        // The vectors' tree is RFC 6962's classic 8-leaf test tree.
        let leaves: [[UInt8]] = [
            [], [0x00], [0x10], [0x20, 0x21], [0x30, 0x31], [0x40, 0x41, 0x42, 0x43], Array(0x50...0x57),
            Array(0x60...0x6F),
        ]
        let log = InMemoryMerkleLog(leafHashes: leaves.map(MerkleTree.leafHash))
        var checked = 0
        for (path, test) in try Self.cases("inclusion", as: InclusionCase.self) where !test.wantErr {
            guard test.treeSize <= 8,
                try Self.bytes(test.leafHash) == MerkleTree.leafHash(leaves[Int(test.leafIdx)]).bytes
            else { continue }
            let nodes = try MerkleTree.requiredNodes(forInclusionOf: test.leafIdx, treeSize: test.treeSize)
            let built = try MerkleTree.inclusionProof(
                forLeafAt: test.leafIdx,
                treeSize: test.treeSize,
                nodes: Dictionary(uniqueKeysWithValues: nodes.map { ($0, log.hash(at: $0)!) })
            )
            #expect(built.hashes.map(\.bytes) == (try (test.proof ?? []).map(Self.bytes)), "\(path)")
            checked += 1
        }
        for (path, test) in try Self.cases("consistency", as: ConsistencyCase.self)
        where !test.wantErr && test.size2 <= 8 && test.proof?.isEmpty == false {
            let nodes = try MerkleTree.requiredNodes(forConsistencyFrom: test.size1, to: test.size2)
            let built = try MerkleTree.consistencyProof(
                from: test.size1,
                to: test.size2,
                nodes: Dictionary(uniqueKeysWithValues: nodes.map { ($0, log.hash(at: $0)!) })
            )
            #expect(built.hashes.map(\.bytes) == (try (test.proof ?? []).map(Self.bytes)), "\(path)")
            checked += 1
        }
        #expect(checked >= 8)
    }
}
