// Key-transparency costs at 1M entries: building the tree, proof generation from memory and from SQLite (O(log n)
// node reads each), proof verification, and what logging adds to a registration. Run with scripts/bench-log.sh.
import Foundation
import GRDB
import WotsCore
import WotsStorage
import WotsStorageSQLite
import WotsTransparency

let leafCount = UInt64(CommandLine.arguments.dropFirst().first.flatMap { Int($0) } ?? 1_000_000)
let proofCount = 2_000
let registrations = 300

func seconds(_ work: () async throws -> Void) async rethrows -> Double {
    let start = ContinuousClock.now
    try await work()
    let elapsed = ContinuousClock.now - start
    return Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
}

func line(_ name: String, _ value: Double, _ unit: String) {
    print(name.padding(toLength: 58, withPad: " ", startingAt: 0) + String(format: "%12.2f %@", value, unit))
}

print("log-bench: \(leafCount) leaves, \(proofCount) proofs per figure, \(registrations) registrations")
var tree = InMemoryMerkleLog()
var completed: [MerkleNode] = []
completed.reserveCapacity(Int(leafCount) * 2)
let build = await seconds {
    for index in 0..<leafCount {
        completed += tree.append(leafHash: MerkleTree.leafHash(InMemoryMerkleLog.syntheticLeaf(index)))
    }
}
line("append (in memory), leaves/s", Double(leafCount) / build, "/s")
let frozen = tree
let root = frozen.rootHash
let indices = (0..<proofCount).map { _ in UInt64.random(in: 0..<leafCount) }

var inclusionProofs: [InclusionProof] = []
let generate = try await seconds {
    for index in indices {
        inclusionProofs.append(
            try await MerkleTree.inclusionProof(forLeafAt: index, treeSize: leafCount, reader: frozen)
        )
    }
}
line("inclusion proof generation (in memory), per proof", generate / Double(proofCount) * 1e6, "µs")
let verify = try await seconds {
    for (index, proof) in zip(indices, inclusionProofs) {
        try proof.verify(leafHash: MerkleTree.leafHash(InMemoryMerkleLog.syntheticLeaf(index)), rootHash: root)
    }
}
line("inclusion proof verification, per proof", verify / Double(proofCount) * 1e6, "µs")
var consistencyProofs: [(ConsistencyProof, MerkleHash)] = []
let oldSizes = indices.map { max(1, $0) }
let generateConsistency = try await seconds {
    for size in oldSizes {
        let proof = try await MerkleTree.consistencyProof(from: size, to: leafCount, reader: frozen)
        consistencyProofs.append((proof, try await MerkleTree.rootHash(treeSize: size, reader: frozen)))
    }
}
line("consistency proof + old root (in memory), per proof", generateConsistency / Double(proofCount) * 1e6, "µs")
let verifyConsistency = try await seconds {
    for (proof, oldRoot) in consistencyProofs {
        try proof.verify(oldRoot: oldRoot, newRoot: root)
    }
}
line("consistency proof verification, per proof", verifyConsistency / Double(proofCount) * 1e6, "µs")

// SQLite: the same tree written straight into a migrated database's log tables, then proofs through the relay's reader.
let folder = FileManager.default.temporaryDirectory.appendingPathComponent("wots-log-bench-\(UUID().uuidString)")
try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
defer { try? FileManager.default.removeItem(at: folder) }
let path = folder.appendingPathComponent("log.sqlite").path
let database = try await SQLiteDatabase(path: path)
let queue = try DatabaseQueue(path: path)
let fill = try await seconds {
    let token = Data(repeating: 0, count: 16)
    try await queue.write { [nodes = completed] db in
        let leafStatement = try db.makeStatement(
            sql: "INSERT INTO log_leaves (leaf_index, token, leaf) VALUES (?, ?, ?)"
        )
        for index in 0..<leafCount {
            try leafStatement.execute(arguments: [Int64(index), token, Data(InMemoryMerkleLog.syntheticLeaf(index))])
        }
        let nodeStatement = try db.makeStatement(
            sql: "INSERT INTO log_nodes (level, node_index, hash) VALUES (?, ?, ?)"
        )
        for node in nodes {
            try nodeStatement.execute(arguments: [node.address.level, Int64(node.address.index), Data(node.hash.bytes)])
        }
    }
}
try queue.close()
line("SQLite fill (\(completed.count) nodes, one transaction)", fill, "s")
let log = SQLiteTransparencyLog(database: database)
let sqliteRoot = try await log.treeHead()
precondition(sqliteRoot.rootHash == root, "SQLite's tree head differs from the in-memory one")
let sqliteInclusion = try await seconds {
    for index in indices {
        _ = try await MerkleTree.inclusionProof(forLeafAt: index, treeSize: leafCount, reader: log)
    }
}
line("inclusion proof generation (SQLite, 1 read txn), per proof", sqliteInclusion / Double(proofCount) * 1e6, "µs")
let sqliteConsistency = try await seconds {
    for size in oldSizes {
        _ = try await MerkleTree.consistencyProof(from: size, to: leafCount, reader: log)
    }
}
line("consistency proof generation (SQLite), per proof", sqliteConsistency / Double(proofCount) * 1e6, "µs")

// Registration: the directory insert with its log append, against the same insert alone (same durability).
let directory = SQLiteDirectoryRepository(database: database)
func entry(_ prefix: String, _ number: Int) -> DirectoryEntry {
    DirectoryEntry(
        token: try! Token(bytes: (0..<16).map { _ in UInt8.random(in: 0...255) }),
        nickname: try! Nickname("\(prefix)\(number)"),
        publicKeys: PublicKeys(signing: Array(repeating: 1, count: 294), encryption: Array(repeating: 2, count: 294)),
        fingerprint: try! Fingerprint(bytes: Array(repeating: 3, count: 32)),
        registeredAt: Date()
    )
}
let logged = try await seconds {
    for number in 0..<registrations {
        try await directory.create(entry("logged", number), attestation: Array(repeating: 4, count: 256))
    }
}
let plainQueue = try DatabaseQueue(path: path)
let plain = try await seconds {
    for number in 0..<registrations {
        let row = entry("plain", number)
        try await plainQueue.write { db in
            try db.execute(
                sql: """
                    INSERT INTO directory_entries
                        (token, nickname, signing_key, encryption_key, fingerprint, registered_at_ms)
                    VALUES (?, ?, ?, ?, ?, ?)
                    """,
                arguments: [
                    Data(row.token.bytes), row.nickname.value, Data(row.publicKeys.signing),
                    Data(row.publicKeys.encryption), Data(row.fingerprint.bytes), 0,
                ]
            )
        }
    }
}
try plainQueue.close()
line(
    "registration with log append at \(leafCount) leaves, per registration",
    logged / Double(registrations) * 1e3,
    "ms"
)
line("directory insert alone (same database), per registration", plain / Double(registrations) * 1e3, "ms")
line("cost of logging, ratio", logged / plain, "×")
try database.close()
