import Synchronization
import Testing
import WotsTransparency

/// A reader that counts what proof building asks storage for.
final class CountingReader: MerkleNodeReader {
    let log: InMemoryMerkleLog
    private let counts = Mutex((calls: 0, nodes: 0))

    init(_ log: InMemoryMerkleLog) { self.log = log }

    func hashes(at addresses: [NodeAddress]) async throws -> [NodeAddress: MerkleHash] {
        self.counts.withLock { $0 = ($0.calls + 1, $0.nodes + addresses.count) }
        return try await self.log.hashes(at: addresses)
    }

    /// Calls and nodes read since the last `take`.
    func take() -> (calls: Int, nodes: Int) {
        self.counts.withLock { counts in
            defer { counts = (0, 0) }
            return counts
        }
    }
}

/// A log of 2^20 leaves built with the appender: each proof costs one batched read of at most 2·⌈log2 n⌉ + 2 nodes.
@Suite struct ReadCountTests {
    static let leafCount: UInt64 = 1 << 20

    @Test func proofsFromAMillionLeafLogReadLogarithmicallyManyNodesInOneBatch() async throws {
        let clock = ContinuousClock()
        let start = clock.now
        let log = InMemoryMerkleLog.synthetic(leafCount: Self.leafCount)
        let built = clock.now - start
        let reader = CountingReader(log)
        let n = Self.leafCount
        let bound = 2 * (64 - (n - 1).leadingZeroBitCount) + 2

        let headStart = clock.now
        #expect(try await MerkleTree.rootHash(treeSize: n, reader: reader) == log.rootHash)
        #expect(reader.take() == (1, 1))

        var report: [String] = ["built \(n) leaves in \(built)"]
        for (index, size) in [(0, n), (n - 1, n), (n / 2 + 12_345, n), (777_777, 1_000_001), (3, 999_999)] {
            let proof = try await MerkleTree.inclusionProof(forLeafAt: index, treeSize: size, reader: reader)
            let read = reader.take()
            #expect(read.calls == 1 && read.nodes <= bound, "inclusion \(index) in \(size): \(read)")
            let root = try await MerkleTree.rootHash(treeSize: size, reader: log)
            let leaf = MerkleTree.leafHash(InMemoryMerkleLog.syntheticLeaf(index))
            #expect(throws: Never.self) { try proof.verify(leafHash: leaf, rootHash: root) }
            report.append("inclusion \(index)/\(size): \(read.nodes) nodes, \(proof.hashes.count) hashes")
        }
        for (oldSize, newSize) in [(1, n), (n - 1, n), (n / 2, n), (333_333, 1_000_001), (524_289, 999_999)] {
            let proof = try await MerkleTree.consistencyProof(from: oldSize, to: newSize, reader: reader)
            let read = reader.take()
            #expect(read.calls == 1 && read.nodes <= bound, "consistency \(oldSize) to \(newSize): \(read)")
            let oldRoot = try await MerkleTree.rootHash(treeSize: oldSize, reader: log)
            let newRoot = try await MerkleTree.rootHash(treeSize: newSize, reader: log)
            #expect(throws: Never.self) { try proof.verify(oldRoot: oldRoot, newRoot: newRoot) }
            report.append("consistency \(oldSize)->\(newSize): \(read.nodes) nodes, \(proof.hashes.count) hashes")
        }
        report.append("bound \(bound) nodes; proofs took \(clock.now - headStart)")
        print(report.joined(separator: "\n"))
    }
}
