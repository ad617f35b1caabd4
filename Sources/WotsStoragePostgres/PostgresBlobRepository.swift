public import Foundation
import NIOCore
import PostgresNIO
public import WotsCore
public import WotsStorage

/// Encrypted attachment blobs in PostgreSQL: one row per blob, per recipient and per uploaded chunk.
public struct PostgresBlobRepository: BlobRepository {
    let database: PostgresDatabase

    /// - Parameter database: the migrated database to use.
    public init(database: PostgresDatabase) {
        self.database = database
    }

    public func create(_ blob: NewBlob, quota: Int64) async throws {
        let uploader = Data(blob.uploader.bytes)
        let id = Data(blob.id.bytes)
        let (createdAt, expiresAt) = (PostgresTime.stored(blob.createdAt), PostgresTime.stored(blob.expiresAt))
        let recipients = Array(Set(blob.recipients)).map { ByteBuffer(bytes: $0.bytes) }
        try await self.database.transaction("create a blob") { connection in
            // Serializes one uploader's creations across relays, so two cannot both fit under the quota.
            try await connection.query(
                "SELECT pg_advisory_xact_lock(hashtextextended(encode(\(uploader), 'hex'), 7))",
                logger: self.database.queryLogger
            )
            let stored =
                try await connection.query(
                    "SELECT COALESCE(sum(size), 0)::bigint FROM blobs WHERE uploader = \(uploader)",
                    logger: self.database.queryLogger
                ).collect().first?.decode(Int64.self) ?? 0
            guard stored + blob.size <= quota else {
                throw WotsError.blobQuota(uploader: blob.uploader, stored: stored, adding: blob.size, quota: quota)
            }
            try await connection.query(
                """
                INSERT INTO blobs (id, uploader, size, received, created_at, expires_at)
                VALUES (\(id), \(uploader), \(blob.size), 0, \(createdAt), \(expiresAt))
                """,
                logger: self.database.queryLogger
            )
            if let latest = blob.latestExpiry.map(PostgresTime.stored) {
                try await connection.query(
                    "INSERT INTO blob_latest_expiries (blob_id, latest_expires_at) VALUES (\(id), \(latest))",
                    logger: self.database.queryLogger
                )
            }
            try await connection.query(
                "INSERT INTO blob_recipients (blob_id, recipient) SELECT \(id), unnest(\(recipients)::bytea[])",
                logger: self.database.queryLogger
            )
        }
    }

    public func blob(_ id: BlobID) async throws -> StoredBlob? {
        let key = Data(id.bytes)
        let (rows, recipients) = try await self.database.withErrorMapping("read a blob") {
            let rows = try await self.database.client.query(
                """
                SELECT uploader, size, received, created_at, expires_at, latest_expires_at
                FROM blobs LEFT JOIN blob_latest_expiries ON blob_id = id WHERE id = \(key)
                """,
                logger: self.database.queryLogger
            ).collect()
            let recipients = try await self.database.client.query(
                """
                SELECT recipient, acknowledged_at IS NOT NULL FROM blob_recipients WHERE blob_id = \(key)
                ORDER BY recipient
                """,
                logger: self.database.queryLogger
            ).collect()
            return (rows, recipients)
        }
        guard let row = rows.first else { return nil }
        do {
            let (uploader, size, received, createdAt, expiresAt, latestExpiry) = try row.decode(
                (Data, Int64, Int64, Date, Date, Date?).self
            )
            let listed = try recipients.map { try $0.decode((Data, Bool).self) }
            return StoredBlob(
                id: id,
                uploader: try Token(bytes: Array(uploader)),
                size: size,
                received: received,
                recipients: try listed.map { try Token(bytes: Array($0.0)) },
                acknowledged: try listed.filter(\.1).map { try Token(bytes: Array($0.0)) },
                createdAt: PostgresTime.loaded(createdAt),
                expiresAt: PostgresTime.loaded(expiresAt),
                latestExpiry: latestExpiry.map(PostgresTime.loaded)
            )
        } catch {
            throw WotsError(.storageCorrupted, "the stored blob \(id) could not be decoded")
        }
    }

    public func append(_ bytes: [UInt8], to id: BlobID, at offset: Int64, completedExpiry: Date) async throws
        -> BlobAppend
    {
        let key = Data(id.bytes)
        let expiry = PostgresTime.stored(completedExpiry)
        return try await self.database.transaction("append to a blob") { connection in
            guard
                let row = try await connection.query(
                    "SELECT size, received FROM blobs WHERE id = \(key) FOR UPDATE",
                    logger: self.database.queryLogger
                ).collect().first
            else { throw WotsError(.unknownBlob, "no blob \(id)") }
            let (size, received) = try row.decode((Int64, Int64).self)
            guard offset == received else { return .offsetMismatch(current: received) }
            guard offset + Int64(bytes.count) <= size else {
                throw WotsError.blobOverrun(id, size: size, offset: offset, count: bytes.count)
            }
            guard !bytes.isEmpty else { return .appended(received: received) }
            let now = offset + Int64(bytes.count)
            try await connection.query(
                "INSERT INTO blob_chunks (blob_id, chunk_offset, data) VALUES (\(key), \(offset), \(Data(bytes)))",
                logger: self.database.queryLogger
            )
            try await connection.query(
                """
                UPDATE blobs SET received = \(now),
                    expires_at = CASE WHEN \(now) = size THEN LEAST(
                        \(expiry), (SELECT latest_expires_at FROM blob_latest_expiries WHERE blob_id = \(key))
                    ) ELSE expires_at END
                WHERE id = \(key)
                """,
                logger: self.database.queryLogger
            )
            return .appended(received: now)
        }
    }

    public func chunk(of id: BlobID, containing offset: Int64) async throws -> BlobChunk? {
        let key = Data(id.bytes)
        let rows = try await self.database.withErrorMapping("read a blob chunk") {
            try await self.database.client.query(
                """
                SELECT chunk_offset, data FROM blob_chunks WHERE blob_id = \(key) AND chunk_offset <= \(offset)
                ORDER BY chunk_offset DESC LIMIT 1
                """,
                logger: self.database.queryLogger
            ).collect()
        }
        guard let row = rows.first else { return nil }
        let (start, data) = try row.decode((Int64, Data).self)
        let chunk = BlobChunk(offset: start, bytes: Array(data))
        return offset < chunk.offset + Int64(chunk.bytes.count) ? chunk : nil
    }

    public func acknowledge(_ id: BlobID, by recipient: Token) async throws -> Bool {
        let (key, token) = (Data(id.bytes), Data(recipient.bytes))
        let now = PostgresTime.stored(Date())
        return try await self.database.transaction("acknowledge a blob") { connection in
            // Locking the blob's row first makes the last two acknowledgements see each other.
            let locked = try await connection.query(
                "SELECT 1 FROM blobs WHERE id = \(key) FOR UPDATE",
                logger: self.database.queryLogger
            ).collect()
            let updated = try await connection.query(
                """
                UPDATE blob_recipients SET acknowledged_at = COALESCE(acknowledged_at, \(now))
                WHERE blob_id = \(key) AND recipient = \(token) RETURNING 1
                """,
                logger: self.database.queryLogger
            ).collect()
            guard !locked.isEmpty, updated.count == 1 else {
                throw WotsError(.unknownBlob, "no blob \(id) for this recipient")
            }
            let waiting =
                try await connection.query(
                    "SELECT count(*)::bigint FROM blob_recipients WHERE blob_id = \(key) AND acknowledged_at IS NULL",
                    logger: self.database.queryLogger
                ).collect().first?.decode(Int64.self) ?? 0
            guard waiting == 0 else { return false }
            try await connection.query("DELETE FROM blobs WHERE id = \(key)", logger: self.database.queryLogger)
            return true
        }
    }

    public func forgetAccount(_ token: Token) async throws -> Int {
        let account = Data(token.bytes)
        let now = PostgresTime.stored(Date())
        let logger = self.database.queryLogger
        return try await self.database.transaction("forget a deleted account's blobs") { connection in
            // Locking the blobs first, in id order, as `acknowledge` does: a last acknowledgement and this one then
            // see each other.
            _ = try await connection.query(
                """
                SELECT id FROM blobs
                WHERE uploader = \(account) OR id IN (SELECT blob_id FROM blob_recipients WHERE recipient = \(account))
                ORDER BY id FOR UPDATE
                """,
                logger: logger
            ).collect()
            try await connection.query(
                """
                UPDATE blob_recipients SET acknowledged_at = \(now)
                WHERE recipient = \(account) AND acknowledged_at IS NULL
                """,
                logger: logger
            )
            return try await connection.query(
                """
                DELETE FROM blobs b
                WHERE (b.uploader = \(account) AND b.received < b.size)
                   OR (b.id IN (SELECT blob_id FROM blob_recipients WHERE recipient = \(account))
                       AND NOT EXISTS (
                           SELECT 1 FROM blob_recipients r WHERE r.blob_id = b.id AND r.acknowledged_at IS NULL))
                RETURNING 1
                """,
                logger: logger
            ).collect().count
        }
    }

    public func deleteExpired(now: Date) async throws -> Int {
        let rows = try await self.database.withErrorMapping("delete expired blobs") {
            try await self.database.client.query(
                "DELETE FROM blobs WHERE expires_at <= \(now) RETURNING 1",
                logger: self.database.queryLogger
            ).collect()
        }
        return rows.count
    }

    public func storedBytes() async throws -> Int64 {
        let rows = try await self.database.withErrorMapping("sum blob sizes") {
            try await self.database.client.query(
                "SELECT COALESCE(sum(size), 0)::bigint FROM blobs",
                logger: self.database.queryLogger
            ).collect()
        }
        return try rows.first?.decode(Int64.self) ?? 0
    }
}
