public import Foundation
import GRDB
public import WotsCore
public import WotsStorage
public import WotsTransparency

/// The transparency log in SQLite: `log_leaves` and `log_nodes`. SQLite's single writer serializes appends; the
/// directory and account repositories call `append(_:in:)` inside their own write transactions.
public struct SQLiteTransparencyLog: TransparencyLogRepository {
    private let database: SQLiteDatabase

    /// Uses the tables of an opened, migrated database.
    public init(database: SQLiteDatabase) {
        self.database = database
    }

    public func size() async throws -> UInt64 {
        try await self.database.read("read the log size") { db in try Self.size(in: db) }
    }

    public func leaves(in range: Range<UInt64>) async throws -> [[UInt8]] {
        try await self.database.read("read log leaves") { db in
            let size = try Self.size(in: db)
            guard range.upperBound <= size else { throw leavesOutOfRange(range, size: size) }
            return try Data.fetchAll(
                db,
                sql: "SELECT leaf FROM log_leaves WHERE leaf_index >= ? AND leaf_index < ? ORDER BY leaf_index",
                arguments: [Int64(range.lowerBound), Int64(range.upperBound)]
            ).map { [UInt8]($0) }
        }
    }

    public func latestLeafIndex(of token: Token) async throws -> UInt64? {
        try await self.database.read("find a token's newest log leaf") { db in
            try Self.latestLeafIndex(of: token, in: db)
        }
    }

    public func hashes(at addresses: [NodeAddress]) async throws -> [NodeAddress: MerkleHash] {
        try await self.database.read("read log nodes") { db in
            var found: [NodeAddress: MerkleHash] = [:]
            for address in addresses {
                if let hash = try Self.hash(at: address, in: db) { found[address] = hash }
            }
            return found
        }
    }

    @discardableResult
    public func logUnloggedEntries(at now: Date) async throws -> Int {
        try await self.database.write("log the directory entries made before the log") { db in
            let rows = try Row.fetchAll(
                db,
                sql: """
                    SELECT token, nickname, signing_key, encryption_key, fingerprint, registered_at_ms, deleted_at_ms
                    FROM directory_entries WHERE token NOT IN (SELECT token FROM log_leaves)
                    ORDER BY registered_at_ms, token
                    """
            )
            var appended = 0
            for row in rows {
                let entry = try SQLiteDirectoryRepository.entry(from: row)
                try Self.append(DirectoryLogEvent(.registered, entry, at: entry.registeredAt), in: db)
                appended += 1
                if let deletedAt = row["deleted_at_ms"] as Int64? {
                    try Self.append(
                        DirectoryLogEvent(.deleted, entry, at: Date(millisecondsSince1970: deletedAt)),
                        in: db
                    )
                    appended += 1
                }
            }
            return appended
        }
    }

    /// Appends `event` as the next leaf inside the caller's write transaction, numbered after the token's previous
    /// leaf, with every node it completes. Reads O(log n) nodes (the log's right edge).
    /// - Returns: the new leaf's index.
    @discardableResult
    static func append(_ event: DirectoryLogEvent, in db: Database) throws -> UInt64 {
        let size = try Self.size(in: db)
        let frontierHashes = try MerkleFrontier.nodeAddresses(forSize: size).map { address in
            guard let hash = try Self.hash(at: address, in: db) else {
                throw WotsError(.storageCorrupted, "the log of \(size) leaves lacks its node \(address)")
            }
            return hash
        }
        let frontier = try MerkleFrontier(size: size, hashes: frontierHashes)
        let append = try LogAppend(event, previous: try Self.latestLeafIndex(of: event.token, in: db), after: frontier)
        try db.execute(
            sql: "INSERT INTO log_leaves (leaf_index, token, leaf) VALUES (?, ?, ?)",
            arguments: [Int64(append.index), event.token.databaseBytes, Data(append.leaf)]
        )
        for node in append.completedNodes {
            try db.execute(
                sql: "INSERT INTO log_nodes (level, node_index, hash) VALUES (?, ?, ?)",
                arguments: [node.address.level, Int64(node.address.index), Data(node.hash.bytes)]
            )
        }
        return append.index
    }

    private static func size(in db: Database) throws -> UInt64 {
        UInt64(try Int64.fetchOne(db, sql: "SELECT COALESCE(MAX(leaf_index) + 1, 0) FROM log_leaves") ?? 0)
    }

    private static func latestLeafIndex(of token: Token, in db: Database) throws -> UInt64? {
        try Int64.fetchOne(
            db,
            sql: "SELECT MAX(leaf_index) FROM log_leaves WHERE token = ?",
            arguments: [token.databaseBytes]
        ).map { UInt64($0) }
    }

    private static func hash(at address: NodeAddress, in db: Database) throws -> MerkleHash? {
        guard
            let data = try Data.fetchOne(
                db.cachedStatement(sql: "SELECT hash FROM log_nodes WHERE level = ? AND node_index = ?"),
                arguments: [address.level, Int64(address.index)]
            )
        else { return nil }
        do {
            return try MerkleHash(bytes: [UInt8](data))
        } catch {
            throw WotsError(.storageCorrupted, "log node \(address) holds \(data.count) bytes, not a hash")
        }
    }
}
