public import Foundation
import Logging
import NIOCore
import PostgresNIO
public import WotsCore
public import WotsStorage
public import WotsTransparency

/// The transparency log in PostgreSQL: `log_leaves` and `log_nodes`, one log for every relay on the database. The
/// directory and account repositories call `append(_:on:logger:)` inside their own transactions; the table lock it
/// takes serializes appenders across processes.
public struct PostgresTransparencyLog: TransparencyLogRepository {
    let database: PostgresDatabase

    /// - Parameter database: the migrated database to use.
    public init(database: PostgresDatabase) {
        self.database = database
    }

    public func size() async throws -> UInt64 {
        try await self.database.withErrorMapping("read the log size") {
            try await Self.size(on: self.database.client, logger: self.database.queryLogger)
        }
    }

    public func leaves(in range: Range<UInt64>) async throws -> [[UInt8]] {
        let (start, end) = (Int64(range.lowerBound), Int64(range.upperBound))
        let rows = try await self.database.withErrorMapping("read log leaves") {
            try await self.database.client.query(
                """
                SELECT leaf FROM log_leaves WHERE leaf_index >= \(start) AND leaf_index < \(end) ORDER BY leaf_index
                """,
                logger: self.database.queryLogger
            ).collect()
        }
        guard rows.count == range.count else {
            throw leavesOutOfRange(range, size: range.lowerBound + UInt64(rows.count))
        }
        return try rows.map { [UInt8](try $0.decode(Data.self)) }
    }

    public func latestLeafIndex(of token: Token) async throws -> UInt64? {
        try await self.database.withErrorMapping("find a token's newest log leaf") {
            try await Self.latestLeafIndex(of: token, on: self.database.client, logger: self.database.queryLogger)
        }
    }

    public func hashes(at addresses: [NodeAddress]) async throws -> [NodeAddress: MerkleHash] {
        try await self.database.withErrorMapping("read log nodes") {
            try await Self.hashes(at: addresses, on: self.database.client, logger: self.database.queryLogger)
        }
    }

    @discardableResult
    public func logUnloggedEntries(at now: Date) async throws -> Int {
        let logger = self.database.queryLogger
        return try await self.database.transaction("log the directory entries made before the log") { connection in
            try await Self.lock(on: connection, logger: logger)
            let rows = try await connection.query(
                """
                SELECT token, nickname, signing_key, encryption_key, fingerprint, registered_at, deleted_at
                FROM directory_entries WHERE token NOT IN (SELECT token FROM log_leaves)
                ORDER BY registered_at, token
                """,
                logger: logger
            ).collect()
            var appended = 0
            for row in rows {
                let (entry, deletedAt) = try PostgresDirectoryRepository.entryWithDeletion(from: row)
                try await Self.append(
                    DirectoryLogEvent(.registered, entry, at: entry.registeredAt),
                    on: connection,
                    logger: logger
                )
                appended += 1
                if let deletedAt {
                    try await Self.append(
                        DirectoryLogEvent(.deleted, entry, at: deletedAt),
                        on: connection,
                        logger: logger
                    )
                    appended += 1
                }
            }
            return appended
        }
    }

    /// Appends `event` as the next leaf inside the caller's transaction, numbered after the token's previous leaf,
    /// with every node it completes. Takes the log's table lock first (held to the end of the transaction), then
    /// reads O(log n) nodes (the log's right edge).
    /// - Returns: the new leaf's index.
    @discardableResult
    static func append(_ event: DirectoryLogEvent, on connection: PostgresConnection, logger: Logger) async throws
        -> UInt64
    {
        try await Self.lock(on: connection, logger: logger)
        let size = try await Self.size(on: connection, logger: logger)
        let addresses = MerkleFrontier.nodeAddresses(forSize: size)
        let stored = try await Self.hashes(at: addresses, on: connection, logger: logger)
        let frontierHashes = try addresses.map { address in
            guard let hash = stored[address] else {
                throw WotsError(.storageCorrupted, "the log of \(size) leaves lacks its node \(address)")
            }
            return hash
        }
        let frontier = try MerkleFrontier(size: size, hashes: frontierHashes)
        let previous = try await Self.latestLeafIndex(of: event.token, on: connection, logger: logger)
        let append = try LogAppend(event, previous: previous, after: frontier)
        try await connection.query(
            """
            INSERT INTO log_leaves (leaf_index, token, leaf)
            VALUES (\(Int64(append.index)), \(Data(event.token.bytes)), \(Data(append.leaf)))
            """,
            logger: logger
        )
        let levels = append.completedNodes.map { Int16($0.address.level) }
        let indexes = append.completedNodes.map { Int64($0.address.index) }
        let hashes = append.completedNodes.map { ByteBuffer(bytes: $0.hash.bytes) }
        try await connection.query(
            """
            INSERT INTO log_nodes (level, node_index, hash)
            SELECT * FROM unnest(\(levels)::smallint[], \(indexes)::bigint[], \(hashes)::bytea[])
            """,
            logger: logger
        )
        return append.index
    }

    /// Serializes appenders (every relay process on the database) until the transaction ends; readers pass.
    private static func lock(on connection: PostgresConnection, logger: Logger) async throws {
        try await connection.query("LOCK TABLE log_leaves IN SHARE ROW EXCLUSIVE MODE", logger: logger)
    }

    private static func size(on runner: some PostgresQueryRunner, logger: Logger) async throws -> UInt64 {
        let rows = try await runner.run("SELECT COALESCE(MAX(leaf_index) + 1, 0)::bigint FROM log_leaves", logger)
        return UInt64(try rows.first?.decode(Int64.self) ?? 0)
    }

    private static func latestLeafIndex(of token: Token, on runner: some PostgresQueryRunner, logger: Logger)
        async throws -> UInt64?
    {
        let rows = try await runner.run(
            "SELECT MAX(leaf_index) FROM log_leaves WHERE token = \(Data(token.bytes))",
            logger
        )
        guard let row = rows.first, let index = try row.decode(Int64?.self) else { return nil }
        return UInt64(index)
    }

    private static func hashes(at addresses: [NodeAddress], on runner: some PostgresQueryRunner, logger: Logger)
        async throws -> [NodeAddress: MerkleHash]
    {
        guard !addresses.isEmpty else { return [:] }
        let levels = addresses.map { Int16($0.level) }
        let indexes = addresses.map { Int64($0.index) }
        let rows = try await runner.run(
            """
            SELECT level, node_index, hash FROM log_nodes
            WHERE (level, node_index) IN (SELECT * FROM unnest(\(levels)::smallint[], \(indexes)::bigint[]))
            """,
            logger
        )
        var found: [NodeAddress: MerkleHash] = [:]
        for row in rows {
            let (level, index, hash) = try row.decode((Int16, Int64, Data).self)
            guard (0...63).contains(level), index >= 0, let merkleHash = try? MerkleHash(bytes: [UInt8](hash)) else {
                throw WotsError(.storageCorrupted, "log node (\(level), \(index)) is not a valid stored node")
            }
            found[NodeAddress(level: Int(level), index: UInt64(index))] = merkleHash
        }
        return found
    }
}

/// A pooled client or one transaction's connection: where the log's reads run.
protocol PostgresQueryRunner: Sendable {
    func run(_ query: PostgresQuery, _ logger: Logger) async throws -> [PostgresRow]
}

extension PostgresClient: PostgresQueryRunner {
    func run(_ query: PostgresQuery, _ logger: Logger) async throws -> [PostgresRow] {
        try await self.query(query, logger: logger).collect()
    }
}

extension PostgresConnection: PostgresQueryRunner {
    func run(_ query: PostgresQuery, _ logger: Logger) async throws -> [PostgresRow] {
        try await self.query(query, logger: logger).collect()
    }
}
