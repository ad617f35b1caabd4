import Foundation
import GRDB
public import WotsCore
public import WotsStorage

/// Sealed private records in SQLite, one row per token.
public struct SQLitePrivateRecordRepository: PrivateRecordRepository {
    private let database: SQLiteDatabase

    /// Uses the tables of an opened, migrated database.
    public init(database: SQLiteDatabase) {
        self.database = database
    }

    public func create(_ record: PrivateRecord) async throws {
        try await self.database.write("create a private record") { db in
            let exists = try Bool.fetchOne(
                db,
                sql: "SELECT EXISTS (SELECT 1 FROM private_records WHERE token = ?)",
                arguments: [record.token.databaseBytes]
            )
            if exists == true {
                throw WotsError(.tokenTaken, "token \(record.token) has a private record already")
            }
            try Self.insert(record, replacing: false, in: db)
        }
    }

    public func put(_ record: PrivateRecord) async throws {
        try await self.database.write("store a private record") { db in
            try Self.insert(record, replacing: true, in: db)
        }
    }

    public func record(for token: Token) async throws -> PrivateRecord? {
        try await self.database.read("read a private record") { db in
            let row = try Row.fetchOne(
                db,
                sql: """
                    SELECT kdf_salt, kdf_n, kdf_r, kdf_p, sealed_private_keys, secret_verifier,
                           avatar_preset, avatar_image
                    FROM private_records WHERE token = ?
                    """,
                arguments: [token.databaseBytes]
            )
            return try row.map { try Self.record(token: token, from: $0) }
        }
    }

    public func delete(token: Token) async throws {
        try await self.database.write("delete a private record") { db in try Self.delete(token: token, in: db) }
    }

    static func delete(token: Token, in db: Database) throws {
        try db.execute(sql: "DELETE FROM private_records WHERE token = ?", arguments: [token.databaseBytes])
    }

    static func insert(_ record: PrivateRecord, replacing: Bool, in db: Database) throws {
        var preset: String?
        var image: Data?
        switch record.avatar {
        case .preset(let value): preset = value.rawValue
        case .image(let bytes): image = Data(bytes)
        case nil: break
        }
        let arguments: StatementArguments = [
            record.token.databaseBytes, Data(record.keyDerivation.salt),
            Int64(bitPattern: record.keyDerivation.n), Int64(record.keyDerivation.r), Int64(record.keyDerivation.p),
            Data(record.sealedPrivateKeys), Data(record.secretVerifier), preset, image,
        ]
        if replacing {
            try db.execute(
                sql: """
                    INSERT OR REPLACE INTO private_records
                        (token, kdf_salt, kdf_n, kdf_r, kdf_p, sealed_private_keys, secret_verifier,
                         avatar_preset, avatar_image)
                    VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)
                    """,
                arguments: arguments
            )
        } else {
            try db.execute(
                sql: """
                    INSERT INTO private_records
                        (token, kdf_salt, kdf_n, kdf_r, kdf_p, sealed_private_keys, secret_verifier,
                         avatar_preset, avatar_image)
                    VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)
                    """,
                arguments: arguments
            )
        }
    }

    private static func record(token: Token, from row: Row) throws -> PrivateRecord {
        let avatar: Avatar?
        if let preset = row["avatar_preset"] as String? {
            guard let value = Avatar.Preset(rawValue: preset) else {
                throw WotsError(.storageCorrupted, "the private record of \(token) names an unknown avatar preset")
            }
            avatar = .preset(value)
        } else if let image = row["avatar_image"] as Data? {
            avatar = .image([UInt8](image))
        } else {
            avatar = nil
        }
        guard let r = UInt32(exactly: row["kdf_r"] as Int64), let p = UInt32(exactly: row["kdf_p"] as Int64) else {
            throw WotsError(.storageCorrupted, "the private record of \(token) has out-of-range scrypt parameters")
        }
        return PrivateRecord(
            token: token,
            keyDerivation: KeyDerivationParameters(
                salt: [UInt8](row["kdf_salt"] as Data),
                n: UInt64(bitPattern: row["kdf_n"] as Int64),
                r: r,
                p: p
            ),
            sealedPrivateKeys: [UInt8](row["sealed_private_keys"] as Data),
            secretVerifier: [UInt8](row["secret_verifier"] as Data),
            avatar: avatar
        )
    }
}
