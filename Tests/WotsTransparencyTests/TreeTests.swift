import Testing
import WotsCore
import WotsTransparency

@Suite struct TreeTests {
    /// RFC 6962's 8-leaf test tree and its heads at sizes 1–8, as published with the certificate-transparency code.
    static let leaves: [[UInt8]] = [
        [], [0x00], [0x10], [0x20, 0x21], [0x30, 0x31], [0x40, 0x41, 0x42, 0x43], Array(0x50...0x57),
        Array(0x60...0x6F),
    ]
    static let heads = [
        "6e340b9cffb37a989ca544e6bb780a2c78901d3fb33738768511a30617afa01d",
        "fac54203e7cc696cf0dfcb42c92a1d9dbaf70ad9e621f4bd8d98662f00e3c125",
        "aeb6bcfe274b70a14fb067a5e5578264db0fa9b51af5e0ba159158f329e06e77",
        "d37ee418976dd95753c1c73862b9398fa2a2cf9b4ff0fdfe8b30cd95209614b7",
        "4e3bbb1f7b478dcfe71fb631631519a3bca12c9aefca1612bfce4c13a86264d4",
        "76e67dadbcdf1e10e1b74ddc608abd2f98dfb16fbce75277b5232a127f2087ef",
        "ddb89be403809e325750d3d263cd78929c2942b7942a34b77e122c9594a74c8c",
        "5dc9da79a70659a9ad559cb701ded9a2ab9d823aad2f4960cfe370eff4604328",
    ]

    @Test func emptyTreeHeadIsSHA256OfNothing() {
        #expect(
            Hex.encode(MerkleTree.emptyRootHash.bytes)
                == "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"
        )
        #expect(MerkleTree.rootHash(leafHashes: []) == MerkleTree.emptyRootHash)
        #expect(MerkleFrontier().rootHash == MerkleTree.emptyRootHash)
    }

    @Test func leafAndNodeHashesUseTheirDomainPrefixes() {
        // SHA-256(0x00) and SHA-256(0x01 || 0^64).
        #expect(Hex.encode(MerkleTree.leafHash([]).bytes) == Self.heads[0])
        let zero = try! MerkleHash(bytes: [UInt8](repeating: 0, count: 32))
        #expect(
            Hex.encode(MerkleTree.nodeHash(zero, zero).bytes)
                == "ae0798d0ecaed2b778eddebf18f071a561c53658c05e76cedecc27cafbdbc577"
        )
        #expect(MerkleTree.nodeHash(zero, zero) != MerkleTree.leafHash([UInt8](repeating: 0, count: 64)))
    }

    @Test func rfc6962TestTreeHeadsAreReproducedBothWays() {
        let hashes = Self.leaves.map(MerkleTree.leafHash)
        var frontier = MerkleFrontier()
        for size in 1...8 {
            _ = frontier.append(leafHash: hashes[size - 1])
            #expect(Hex.encode(MerkleTree.rootHash(leafHashes: Array(hashes[..<size])).bytes) == Self.heads[size - 1])
            #expect(Hex.encode(frontier.rootHash.bytes) == Self.heads[size - 1])
        }
    }

    @Test func frontierAgreesWithTheRecursiveDefinitionUpTo300Leaves() throws {
        let hashes = syntheticLeafHashes(300)
        let naive = NaiveMerkleTree(leafHashes: hashes)
        var frontier = MerkleFrontier()
        #expect(frontier.rootHash == naive.head(0..<0))
        for size in 1...300 {
            let before = frontier
            let appended = frontier.appending(leafHash: hashes[size - 1])
            #expect(before == frontier)
            let completed = frontier.append(leafHash: hashes[size - 1])
            #expect(appended.frontier == frontier && appended.completedNodes == completed)
            #expect(frontier.size == UInt64(size) && frontier.hashes.count == size.nonzeroBitCount)
            #expect(frontier.rootHash == naive.head(0..<size), "size \(size)")
            #expect(appended.rootHash == MerkleTree.rootHash(leafHashes: Array(hashes[..<size])))
            // Every completed node is the head of exactly the leaves its address names, and the leaf comes first.
            #expect(completed.first?.address == NodeAddress(level: 0, index: UInt64(size - 1)))
            // One merge per trailing one bit of the old size.
            #expect(completed.count == (~(size - 1)).trailingZeroBitCount + 1)
            for node in completed {
                let leaves = Int(node.address.leaves.lowerBound)..<Int(node.address.leaves.upperBound)
                #expect(leaves.upperBound == size && node.hash == naive.head(leaves), "\(node.address)")
            }
        }
    }

    @Test func frontierRestoresFromItsStoredNodes() throws {
        let log = InMemoryMerkleLog(leafHashes: syntheticLeafHashes(1_000))
        for size: UInt64 in [0, 1, 2, 3, 7, 8, 100, 511, 512, 999, 1_000] {
            let addresses = MerkleFrontier.nodeAddresses(forSize: size)
            let restored = try MerkleFrontier(size: size, hashes: addresses.map { log.hash(at: $0)! })
            #expect(restored.nodes.map(\.address) == addresses)
            #expect(restored.rootHash == MerkleTree.rootHash(leafHashes: syntheticLeafHashes(Int(size))))
            #expect(
                try MerkleTree.rootHash(
                    treeSize: size,
                    nodes: Dictionary(uniqueKeysWithValues: restored.nodes.map { ($0.address, $0.hash) })
                ) == restored.rootHash
            )
        }
        #expect(throws: WotsError(.malformed, "")) { try MerkleFrontier(size: 3, hashes: []) }
    }

    @Test func nodeAddressesNameTheLeavesTheyCover() {
        #expect(NodeAddress(level: 0, index: 5).leaves == 5..<6)
        #expect(NodeAddress(level: 3, index: 2).leaves == 16..<24)
        #expect(NodeAddress(level: 63, index: 0).leaves == 0..<(1 << 63))
        #expect(MerkleFrontier.nodeAddresses(forSize: 13).map(\.description) == ["(3, 0)", "(2, 2)", "(0, 12)"])
    }

    @Test func hashesParseOnlyTheirCanonicalSpelling() throws {
        let hash = MerkleTree.leafHash([1, 2, 3])
        #expect(try MerkleHash(base64: hash.base64) == hash)
        #expect(try MerkleHash(bytes: hash.bytes) == hash)
        for bad in [
            "", "AAAA", hash.base64 + " ", " " + hash.base64, String(hash.base64.dropLast()),
            "@" + hash.base64.dropFirst(),
        ] {
            #expect(throws: WotsError(.malformed, "")) { try MerkleHash(base64: bad) }
        }
        // Non-zero unused bits in the last base64 character spell the same bytes another way.
        let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/".utf8)
        var sloppy = Array(hash.base64.utf8)
        sloppy[42] = alphabet[alphabet.firstIndex(of: sloppy[42])! ^ 1]
        #expect(throws: WotsError(.malformed, "")) {
            try MerkleHash(base64: String(decoding: sloppy, as: UTF8.self))
        }
        #expect(throws: WotsError(.malformed, "")) { try MerkleHash(bytes: [UInt8](repeating: 0, count: 31)) }
    }
}
