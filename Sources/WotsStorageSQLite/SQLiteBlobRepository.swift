public import Foundation
import GRDB
public import WotsCore
public import WotsStorage

/// Encrypted attachment blobs in SQLite: one row per blob, per recipient and per uploaded chunk.
public struct SQLiteBlobRepository: BlobRepository {
    private let database: SQLiteDatabase

    /// Uses the tables of an opened, migrated database.
    public init(database: SQLiteDatabase) {
        self.database = database
    }

    public func create(_ blob: NewBlob, quota: Int64) async throws {
        try await self.database.requireFreeSpace()
        try await self.database.write("create a blob") { db in
            let stored =
                try Int64.fetchOne(
                    db,
                    sql: "SELECT COALESCE(SUM(size), 0) FROM blobs WHERE uploader = ?",
                    arguments: [blob.uploader.databaseBytes]
                ) ?? 0
            guard stored + blob.size <= quota else {
                throw WotsError.blobQuota(uploader: blob.uploader, stored: stored, adding: blob.size, quota: quota)
            }
            try db.execute(
                sql: """
                    INSERT INTO blobs (id, uploader, size, received, created_at_ms, expires_at_ms)
                    VALUES (?, ?, ?, 0, ?, ?)
                    """,
                arguments: [
                    Data(blob.id.bytes), blob.uploader.databaseBytes, blob.size,
                    blob.createdAt.millisecondsSince1970, blob.expiresAt.millisecondsSince1970,
                ]
            )
            if let latest = blob.latestExpiry {
                try db.execute(
                    sql: "INSERT INTO blob_latest_expiries (blob_id, latest_expires_at_ms) VALUES (?, ?)",
                    arguments: [Data(blob.id.bytes), latest.millisecondsSince1970]
                )
            }
            for recipient in Set(blob.recipients) {
                try db.execute(
                    sql: "INSERT INTO blob_recipients (blob_id, recipient) VALUES (?, ?)",
                    arguments: [Data(blob.id.bytes), recipient.databaseBytes]
                )
            }
        }
    }

    public func blob(_ id: BlobID) async throws -> StoredBlob? {
        try await self.database.read("read a blob") { db in try Self.blob(id, in: db) }
    }

    static func blob(_ id: BlobID, in db: Database) throws -> StoredBlob? {
        guard
            let row = try Row.fetchOne(
                db,
                sql: """
                    SELECT uploader, size, received, created_at_ms, expires_at_ms, latest_expires_at_ms
                    FROM blobs LEFT JOIN blob_latest_expiries ON blob_id = id WHERE id = ?
                    """,
                arguments: [Data(id.bytes)]
            )
        else { return nil }
        let recipients = try Row.fetchAll(
            db,
            sql: "SELECT recipient, acknowledged_at_ms FROM blob_recipients WHERE blob_id = ? ORDER BY recipient",
            arguments: [Data(id.bytes)]
        )
        return StoredBlob(
            id: id,
            uploader: try Token(databaseBytes: row["uploader"]),
            size: row["size"],
            received: row["received"],
            recipients: try recipients.map { try Token(databaseBytes: $0["recipient"]) },
            acknowledged: try recipients.filter { ($0["acknowledged_at_ms"] as Int64?) != nil }.map {
                try Token(databaseBytes: $0["recipient"])
            },
            createdAt: Date(millisecondsSince1970: row["created_at_ms"]),
            expiresAt: Date(millisecondsSince1970: row["expires_at_ms"]),
            latestExpiry: (row["latest_expires_at_ms"] as Int64?).map(Date.init(millisecondsSince1970:))
        )
    }

    public func append(_ bytes: [UInt8], to id: BlobID, at offset: Int64, completedExpiry: Date) async throws
        -> BlobAppend
    {
        try await self.database.requireFreeSpace()
        return try await self.database.write("append to a blob") { db in
            guard
                let row = try Row.fetchOne(
                    db,
                    sql: """
                        SELECT size, received, latest_expires_at_ms
                        FROM blobs LEFT JOIN blob_latest_expiries ON blob_id = id WHERE id = ?
                        """,
                    arguments: [Data(id.bytes)]
                )
            else { throw WotsError(.unknownBlob, "no blob \(id)") }
            let (size, received): (Int64, Int64) = (row["size"], row["received"])
            guard offset == received else { return .offsetMismatch(current: received) }
            guard offset + Int64(bytes.count) <= size else {
                throw WotsError.blobOverrun(id, size: size, offset: offset, count: bytes.count)
            }
            guard !bytes.isEmpty else { return .appended(received: received) }
            try db.execute(
                sql: "INSERT INTO blob_chunks (blob_id, chunk_offset, data) VALUES (?, ?, ?)",
                arguments: [Data(id.bytes), offset, Data(bytes)]
            )
            let now = offset + Int64(bytes.count)
            if now == size {
                let latest: Int64? = row["latest_expires_at_ms"]
                let completed = min(completedExpiry.millisecondsSince1970, latest ?? Int64.max)
                try db.execute(
                    sql: "UPDATE blobs SET received = ?, expires_at_ms = ? WHERE id = ?",
                    arguments: [now, completed, Data(id.bytes)]
                )
            } else {
                try db.execute(sql: "UPDATE blobs SET received = ? WHERE id = ?", arguments: [now, Data(id.bytes)])
            }
            return .appended(received: now)
        }
    }

    public func chunk(of id: BlobID, containing offset: Int64) async throws -> BlobChunk? {
        try await self.database.read("read a blob chunk") { db in
            guard
                let row = try Row.fetchOne(
                    db,
                    sql: """
                        SELECT chunk_offset, data FROM blob_chunks WHERE blob_id = ? AND chunk_offset <= ?
                        ORDER BY chunk_offset DESC LIMIT 1
                        """,
                    arguments: [Data(id.bytes), offset]
                )
            else { return nil }
            let chunk = BlobChunk(offset: row["chunk_offset"], bytes: [UInt8](row["data"] as Data))
            return offset < chunk.offset + Int64(chunk.bytes.count) ? chunk : nil
        }
    }

    public func acknowledge(_ id: BlobID, by recipient: Token) async throws -> Bool {
        try await self.database.write("acknowledge a blob") { db in
            try db.execute(
                sql: """
                    UPDATE blob_recipients SET acknowledged_at_ms = COALESCE(acknowledged_at_ms, ?)
                    WHERE blob_id = ? AND recipient = ?
                    """,
                arguments: [Date().millisecondsSince1970, Data(id.bytes), recipient.databaseBytes]
            )
            guard db.changesCount == 1 else { throw WotsError(.unknownBlob, "no blob \(id) for this recipient") }
            let waiting =
                try Int.fetchOne(
                    db,
                    sql: "SELECT COUNT(*) FROM blob_recipients WHERE blob_id = ? AND acknowledged_at_ms IS NULL",
                    arguments: [Data(id.bytes)]
                ) ?? 0
            guard waiting == 0 else { return false }
            try Self.delete([Data(id.bytes)], in: db)
            return true
        }
    }

    public func forgetAccount(_ token: Token) async throws -> Int {
        try await self.database.write("forget a deleted account's blobs") { db in
            let account = token.databaseBytes
            let unfinished = try Data.fetchAll(
                db,
                sql: "SELECT id FROM blobs WHERE uploader = ? AND received < size",
                arguments: [account]
            )
            let awaited = try Data.fetchAll(
                db,
                sql: "SELECT blob_id FROM blob_recipients WHERE recipient = ? AND acknowledged_at_ms IS NULL",
                arguments: [account]
            )
            try db.execute(
                sql:
                    "UPDATE blob_recipients SET acknowledged_at_ms = ? WHERE recipient = ? AND acknowledged_at_ms IS NULL",
                arguments: [Date().millisecondsSince1970, account]
            )
            let done = try awaited.filter { id in
                try Int.fetchOne(
                    db,
                    sql: "SELECT COUNT(*) FROM blob_recipients WHERE blob_id = ? AND acknowledged_at_ms IS NULL",
                    arguments: [id]
                ) == 0
            }
            let deleted = Array(Set(unfinished + done))
            try Self.delete(deleted, in: db)
            return deleted.count
        }
    }

    public func deleteExpired(now: Date) async throws -> Int {
        try await self.database.write("delete expired blobs") { db in
            let expired = try Data.fetchAll(
                db,
                sql: "SELECT id FROM blobs WHERE expires_at_ms <= ?",
                arguments: [now.millisecondsSince1970]
            )
            try Self.delete(expired, in: db)
            return expired.count
        }
    }

    public func storedBytes() async throws -> Int64 {
        try await self.database.read("sum blob sizes") { db in
            try Int64.fetchOne(db, sql: "SELECT COALESCE(SUM(size), 0) FROM blobs") ?? 0
        }
    }

    private static func delete(_ ids: [Data], in db: Database) throws {
        for id in ids {
            try db.execute(sql: "DELETE FROM blob_chunks WHERE blob_id = ?", arguments: [id])
            try db.execute(sql: "DELETE FROM blob_recipients WHERE blob_id = ?", arguments: [id])
            try db.execute(sql: "DELETE FROM blob_latest_expiries WHERE blob_id = ?", arguments: [id])
            try db.execute(sql: "DELETE FROM blobs WHERE id = ?", arguments: [id])
        }
    }
}
