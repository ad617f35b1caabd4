import Foundation
import Testing
import WotsTransparency

/// Where the package and its neighbours are, found from this file rather than the working directory.
enum Locations {
    /// The folder holding Package.swift, found by walking up from this source file.
    static let packageRoot: URL? = {
        var folder = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        while folder.path != "/" {
            if FileManager.default.fileExists(atPath: folder.appendingPathComponent("Package.swift").path) {
                return folder
            }
            folder.deleteLastPathComponent()
        }
        return nil
    }()

    /// `../shared/vectors/merkle/testdata` beside the package (CI checks out `shared` next to the clone).
    static func merkleVectors() throws -> URL {
        let root = try #require(Self.packageRoot, "no Package.swift above \(#filePath)")
        let folder = root.deletingLastPathComponent().appendingPathComponent("shared/vectors/merkle/testdata")
        var isFolder: ObjCBool = false
        try #require(
            FileManager.default.fileExists(atPath: folder.path, isDirectory: &isFolder) && isFolder.boolValue,
            "the Merkle proof vectors are missing: expected \(folder.path)"
        )
        return folder
    }

    /// `schema/vectors/checkpoint-v1.json` in the package.
    static func checkpointVector() throws -> URL {
        let root = try #require(Self.packageRoot, "no Package.swift above \(#filePath)")
        return root.appendingPathComponent("schema/vectors/checkpoint-v1.json")
    }
}

/// SplitMix64: a small seeded generator, so a failing random case can be replayed from its seed.
struct SeededGenerator: RandomNumberGenerator {
    private var state: UInt64

    init(seed: UInt64) { self.state = seed }

    mutating func next() -> UInt64 {
        self.state &+= 0x9E37_79B9_7F4A_7C15
        var z = self.state
        z = (z ^ (z >> 30)) &* 0xBF58_476C_E484_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}

extension MerkleHash {
    /// This hash with bit `bit` (0–255) flipped.
    func flipping(bit: Int) -> MerkleHash {
        var bytes = self.bytes
        bytes[bit / 8] ^= 1 << (bit % 8)
        return try! MerkleHash(bytes: bytes)
    }
}

/// Leaf hashes of made-up leaves, the same ones `InMemoryMerkleLog.synthetic` uses.
func syntheticLeafHashes(_ count: Int) -> [MerkleHash] {
    (0..<UInt64(count)).map { MerkleTree.leafHash(InMemoryMerkleLog.syntheticLeaf($0)) }
}
