import Foundation
import PostgresNIO
public import WotsCore
public import WotsStorage

/// Sealed private records in PostgreSQL, one row per token.
public struct PostgresPrivateRecordRepository: PrivateRecordRepository {
    let database: PostgresDatabase

    /// - Parameter database: the migrated database to use.
    public init(database: PostgresDatabase) {
        self.database = database
    }

    public func create(_ record: PrivateRecord) async throws {
        let columns = try Columns(record)
        let taken = [
            "private_records_pkey": WotsError(.tokenTaken, "token \(record.token) already has a private record")
        ]
        try await self.database.withErrorMapping("store a private record", uniqueViolations: taken) {
            try await self.database.client.query(
                """
                INSERT INTO private_records (token, kdf_salt, kdf_n, kdf_r, kdf_p, sealed_private_keys, secret_verifier,
                    avatar_preset, avatar_image)
                VALUES (\(columns.token), \(columns.salt), \(columns.n), \(columns.r), \(columns.p), \(columns.sealed),
                    \(columns.verifier), \(columns.avatarPreset), \(columns.avatarImage))
                """,
                logger: self.database.queryLogger
            )
        }
    }

    public func put(_ record: PrivateRecord) async throws {
        let columns = try Columns(record)
        try await self.database.withErrorMapping("store a private record") {
            try await self.database.client.query(try Self.upsert(columns), logger: self.database.queryLogger)
        }
    }

    /// Inserts a record or replaces the token's earlier one.
    static func upsert(_ columns: Columns) throws -> PostgresQuery {
        try """
        INSERT INTO private_records (token, kdf_salt, kdf_n, kdf_r, kdf_p, sealed_private_keys, secret_verifier,
            avatar_preset, avatar_image)
        VALUES (\(columns.token), \(columns.salt), \(columns.n), \(columns.r), \(columns.p), \(columns.sealed),
            \(columns.verifier), \(columns.avatarPreset), \(columns.avatarImage))
        ON CONFLICT (token) DO UPDATE SET kdf_salt = EXCLUDED.kdf_salt, kdf_n = EXCLUDED.kdf_n,
            kdf_r = EXCLUDED.kdf_r, kdf_p = EXCLUDED.kdf_p, sealed_private_keys = EXCLUDED.sealed_private_keys,
            secret_verifier = EXCLUDED.secret_verifier, avatar_preset = EXCLUDED.avatar_preset,
            avatar_image = EXCLUDED.avatar_image
        """
    }

    public func record(for token: Token) async throws -> PrivateRecord? {
        let rows = try await self.database.withErrorMapping("read a private record") {
            try await self.database.client.query(
                """
                SELECT kdf_salt, kdf_n, kdf_r, kdf_p, sealed_private_keys, secret_verifier, avatar_preset, avatar_image
                FROM private_records WHERE token = \(Data(token.bytes))
                """,
                logger: self.database.queryLogger
            ).collect()
        }
        guard let row = rows.first else { return nil }
        do {
            let (salt, n, r, p, sealed, verifier, preset, image) = try row.decode(
                (Data, Int64, Int64, Int64, Data, Data, String?, Data?).self
            )
            guard let n = UInt64(exactly: n), let r = UInt32(exactly: r), let p = UInt32(exactly: p) else {
                throw WotsError(.storageCorrupted, "scrypt parameters out of range")
            }
            let avatar: Avatar?
            if let preset {
                avatar = try Avatar.preset(named: preset)
            } else if let image {
                avatar = .image(Array(image))
            } else {
                avatar = nil
            }
            return PrivateRecord(
                token: token,
                keyDerivation: KeyDerivationParameters(salt: Array(salt), n: n, r: r, p: p),
                sealedPrivateKeys: Array(sealed),
                secretVerifier: Array(verifier),
                avatar: avatar
            )
        } catch {
            throw WotsError(.storageCorrupted, "the stored private record of token \(token) could not be decoded")
        }
    }

    public func delete(token: Token) async throws {
        try await self.database.withErrorMapping("delete a private record") {
            try await self.database.client.query(
                "DELETE FROM private_records WHERE token = \(Data(token.bytes))",
                logger: self.database.queryLogger
            )
        }
    }
}

extension PostgresPrivateRecordRepository {
    /// A record as the values bound to its row.
    struct Columns: Sendable {
        var token: Data
        var salt: Data
        var n: Int64
        var r: Int64
        var p: Int64
        var sealed: Data
        var verifier: Data
        var avatarPreset: String?
        var avatarImage: Data?

        init(_ record: PrivateRecord) throws {
            guard let n = Int64(exactly: record.keyDerivation.n) else {
                throw WotsError(.invalidArgument, "scrypt cost N = \(record.keyDerivation.n) is too large to store")
            }
            self.token = Data(record.token.bytes)
            self.salt = Data(record.keyDerivation.salt)
            self.n = n
            self.r = Int64(record.keyDerivation.r)
            self.p = Int64(record.keyDerivation.p)
            self.sealed = Data(record.sealedPrivateKeys)
            self.verifier = Data(record.secretVerifier)
            switch record.avatar {
            case .preset(let preset):
                self.avatarPreset = preset.rawValue
            case .image(let bytes):
                self.avatarImage = Data(bytes)
            case nil:
                break
            }
        }
    }
}
