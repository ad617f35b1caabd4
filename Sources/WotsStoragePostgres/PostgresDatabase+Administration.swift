import PostgresNIO
import WotsCore
import WotsStorage

extension PostgresDatabase {
    /// Creates an empty database on the same server (tests make one per run).
    /// - Parameter name: `[a-z0-9_]`, starting with a letter, at most 63 characters.
    package func createDatabase(named name: String) async throws {
        let identifier = try Self.checkedIdentifier(name)
        try await self.withErrorMapping("create database \(identifier)") {
            // Identifiers cannot be bound parameters; the name was checked to be plain [a-z0-9_].
            try await self.client.query(
                PostgresQuery(unsafeSQL: "CREATE DATABASE \(identifier)"),
                logger: self.queryLogger
            )
        }
    }

    /// Drops a database on the same server, disconnecting whoever still uses it; nothing when it does not exist.
    /// - Parameter name: `[a-z0-9_]`, starting with a letter, at most 63 characters.
    package func dropDatabase(named name: String) async throws {
        let identifier = try Self.checkedIdentifier(name)
        try await self.withErrorMapping("drop database \(identifier)") {
            try await self.client.query(
                PostgresQuery(unsafeSQL: "DROP DATABASE IF EXISTS \(identifier) WITH (FORCE)"),
                logger: self.queryLogger
            )
        }
    }

    private static func checkedIdentifier(_ name: String) throws -> String {
        let plain = name.utf8.allSatisfy { byte in
            (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(byte)
                || (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte)
                || byte == UInt8(ascii: "_")
        }
        guard plain, let first = name.utf8.first, (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(first),
            name.utf8.count <= 63
        else {
            throw WotsError(.invalidArgument, "database name \"\(name.prefix(80))\" is not [a-z][a-z0-9_]{0,62}")
        }
        return name
    }
}
