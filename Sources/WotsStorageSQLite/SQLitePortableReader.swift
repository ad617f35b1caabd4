import Foundation
import GRDB
import WotsCore
package import WotsStorage

/// Reads a SQLite database's tables as portable rows, through any GRDB reader (a snapshot of the live pool, or a
/// read-only backup file).
package struct SQLitePortableReader: PortableRowSource {
    let reader: any DatabaseReader

    package func tableNames() async throws -> [String] {
        try await self.read("list the tables") { db in
            try String.fetchAll(
                db,
                sql: "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' ORDER BY name"
            )
        }
    }

    package func columnNames(of table: String) async throws -> [String] {
        try await self.read("list the columns of \(table)") { db in
            try String.fetchAll(db, sql: "SELECT name FROM pragma_table_info(?)", arguments: [table])
        }
    }

    package func rows(of table: PortableTable, after key: PortableRow?, limit: Int) async throws -> [PortableRow] {
        // Identifiers come from the fixed PortableTable list, never from input; every value is bound.
        let columns = table.columns.map(\.name).joined(separator: ", ")
        let keyColumns = table.primaryKey.map(\.name).joined(separator: ", ")
        var sql = "SELECT \(columns) FROM \(table.name)"
        var arguments = StatementArguments()
        if let key {
            sql += " WHERE (\(keyColumns)) > (\(Array(repeating: "?", count: key.count).joined(separator: ", ")))"
            for value in key { arguments += [Self.databaseValue(value)] }
        }
        sql += " ORDER BY \(keyColumns) LIMIT \(limit)"
        return try await self.read("read \(table.name)") { [sql, arguments] db in
            try Row.fetchAll(db, sql: sql, arguments: arguments).map { row in
                (0..<row.count).map { Self.portableValue(row[$0] as DatabaseValue) }
            }
        }
    }

    func read<T: Sendable>(_ action: String, _ body: @escaping @Sendable (Database) throws -> T) async throws -> T {
        do {
            return try await self.reader.read(body)
        } catch {
            throw SQLiteDatabase.storageError(error, while: action)
        }
    }

    static func portableValue(_ value: DatabaseValue) -> PortableValue {
        switch value.storage {
        case .null: .null
        case .int64(let integer): .integer(integer)
        // No Wots column holds a REAL; one that did would be carried as its text rather than dropped.
        case .double(let double): .text(String(double))
        case .string(let text): .text(text)
        case .blob(let data): .bytes(Array(data))
        }
    }

    static func databaseValue(_ value: PortableValue) -> DatabaseValue {
        switch value {
        case .null: .null
        case .integer(let integer): integer.databaseValue
        case .text(let text): text.databaseValue
        case .bytes(let bytes): Data(bytes).databaseValue
        }
    }
}

extension SQLiteDatabase {
    /// The database's tables as they stand now: later writes stay out of every read made through it.
    package func portableSnapshot() throws -> SQLitePortableReader {
        do {
            return SQLitePortableReader(reader: try self.pool.makeSnapshot())
        } catch {
            throw Self.storageError(error, while: "take a snapshot")
        }
    }
}
