import NIOCore
import PostgresNIO
import WotsCore
package import WotsStorage

extension PostgresDatabase: PortableRowSource {
    package func tableNames() async throws -> [String] {
        try await self.withErrorMapping("list the tables") {
            var names: [String] = []
            let rows = try await self.client.query(
                """
                SELECT table_name::text FROM information_schema.tables
                WHERE table_schema = current_schema() AND table_type = 'BASE TABLE' ORDER BY table_name
                """,
                logger: self.queryLogger
            )
            for try await name in rows.decode(String.self) { names.append(name) }
            return names
        }
    }

    package func columnNames(of table: String) async throws -> [String] {
        try await self.withErrorMapping("list the columns of \(table)") {
            var names: [String] = []
            let rows = try await self.client.query(
                """
                SELECT column_name::text FROM information_schema.columns
                WHERE table_schema = current_schema() AND table_name = \(table) ORDER BY ordinal_position
                """,
                logger: self.queryLogger
            )
            for try await name in rows.decode(String.self) { names.append(name) }
            return names
        }
    }

    package func rows(of table: PortableTable, after key: PortableRow?, limit: Int) async throws -> [PortableRow] {
        // Identifiers and expressions come from the fixed PortableTable list, never from input; values are bound.
        let columns = table.columns.map(Self.readExpression).joined(separator: ", ")
        let keyColumns = table.primaryKey.map(\.postgresName).joined(separator: ", ")
        var sql = "SELECT \(columns) FROM \(table.name)"
        var binds = PostgresBindings()
        if let key {
            let placeholders = zip(table.primaryKey, key).enumerated().map { index, pair in
                Self.bind(pair.1, as: pair.0.kind, into: &binds)
                return Self.writeExpression(pair.0.kind, placeholder: index + 1)
            }
            sql += " WHERE (\(keyColumns)) > (\(placeholders.joined(separator: ", ")))"
        }
        sql += " ORDER BY \(keyColumns) LIMIT \(limit)"
        return try await self.withErrorMapping("read \(table.name)") { [sql, binds] in
            var rows: [PortableRow] = []
            let result = try await self.client.query(
                PostgresQuery(unsafeSQL: sql, binds: binds),
                logger: self.queryLogger
            )
            for try await row in result {
                rows.append(try zip(row, table.columns).map { cell, column in try Self.value(of: cell, column.kind) })
            }
            return rows
        }
    }

    /// Copies every table of `tables` from `source` into this database, in one transaction, after checking that
    /// none of them holds a row yet.
    /// - Returns: how many rows each table received.
    /// - Throws: `invalid_argument` naming a table that holds rows already; `storage_unavailable` when the copy fails
    ///   (nothing is kept then).
    package func load(
        _ tables: [PortableTable],
        from source: some PortableRowSource,
        timeout: Duration,
        pageSize: Int = 200
    ) async throws -> [String: Int] {
        try await self.transaction("copy tables", timeout: timeout) { connection in
            for table in tables {
                let rows = try await connection.query(
                    PostgresQuery(unsafeSQL: "SELECT count(*) FROM (SELECT 1 FROM \(table.name) LIMIT 1) AS held"),
                    logger: self.queryLogger
                )
                for try await held in rows.decode(Int64.self) where held > 0 {
                    throw WotsError(
                        .invalidArgument,
                        "the target database is not empty: \(table.name) holds rows already; "
                            + "migrate into a new, empty database"
                    )
                }
            }
            var counts: [String: Int] = [:]
            for table in tables {
                counts[table.name] = 0
                try await source.forEachPage(of: table, pageSize: pageSize) { page in
                    try await connection.query(Self.insert(page, into: table), logger: self.queryLogger)
                    counts[table.name, default: 0] += page.count
                }
            }
            if tables.contains(where: { $0.name == "mailbox_counters" }) {
                // The byte quota's running totals, as migration 0006 computes them for mail already stored.
                try await connection.query(
                    """
                    UPDATE mailbox_counters AS c SET bytes = totals.bytes
                    FROM (SELECT recipient, sum(octet_length(envelope)) AS bytes FROM mailbox_messages
                          GROUP BY recipient) AS totals
                    WHERE c.recipient = totals.recipient
                    """,
                    logger: self.queryLogger
                )
            }
            return counts
        }
    }

    /// The server's version number (`server_version_num`, 150004 for 15.4).
    package func serverVersionNumber() async throws -> Int {
        try await self.withErrorMapping("read the server version") {
            let rows = try await self.client.query("SHOW server_version_num", logger: self.queryLogger)
            for try await text in rows.decode(String.self) {
                if let number = Int(text) { return number }
            }
            throw WotsError(.storageUnavailable, "the server did not report server_version_num")
        }
    }

    static func insert(_ page: [PortableRow], into table: PortableTable) -> PostgresQuery {
        var binds = PostgresBindings(capacity: page.count * table.columns.count)
        var tuples: [String] = []
        for row in page {
            var placeholders: [String] = []
            for (value, column) in zip(row, table.columns) {
                Self.bind(value, as: column.kind, into: &binds)
                placeholders.append(Self.writeExpression(column.kind, placeholder: binds.count))
            }
            tuples.append("(\(placeholders.joined(separator: ", ")))")
        }
        let columns = table.columns.map(\.postgresName).joined(separator: ", ")
        return PostgresQuery(
            unsafeSQL: "INSERT INTO \(table.name) (\(columns)) VALUES \(tuples.joined(separator: ", "))",
            binds: binds
        )
    }

    /// The column as a portable value: the same type and meaning SQLite stores.
    static func readExpression(_ column: PortableColumn) -> String {
        let name = column.postgresName
        return switch column.kind {
        case .bytes, .envelope, .text: name
        case .integer: "\(name)::int8"
        case .milliseconds: "(extract(epoch FROM \(name)) * 1000)::int8"
        case .uuid: "uuid_send(\(name))"
        case .nextSequence: "(\(name) + 1)::int8"
        }
    }

    /// A bound portable value turned back into the column's own type.
    static func writeExpression(_ kind: PortableColumn.Kind, placeholder index: Int) -> String {
        switch kind {
        case .bytes, .envelope, .text, .integer: "$\(index)"
        case .milliseconds: "(timestamptz 'epoch' + $\(index)::int8 * interval '1 millisecond')"
        case .uuid: "encode($\(index)::bytea, 'hex')::uuid"
        case .nextSequence: "($\(index)::int8 - 1)"
        }
    }

    static func bind(_ value: PortableValue, as kind: PortableColumn.Kind, into binds: inout PostgresBindings) {
        switch value {
        case .null: binds.appendNull()
        case .integer(let integer): binds.append(integer)
        case .text(let text): binds.append(text)
        case .bytes(let bytes): binds.append(ByteBuffer(bytes: bytes))
        }
    }

    static func value(of cell: PostgresCell, _ kind: PortableColumn.Kind) throws -> PortableValue {
        switch kind {
        case .bytes, .envelope, .uuid:
            return try cell.decode(ByteBuffer?.self).map { .bytes(Array($0.readableBytesView)) } ?? .null
        case .text:
            return try cell.decode(String?.self).map { .text($0) } ?? .null
        case .integer, .milliseconds, .nextSequence:
            return try cell.decode(Int64?.self).map { .integer($0) } ?? .null
        }
    }
}
