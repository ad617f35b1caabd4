import WotsCore
import WotsStorage

/// What one table holds: its rows, their checksum, and rows whose content is not what the relay stores.
struct TableSummary: Codable, Sendable, Equatable {
    var table: String
    var rows: Int
    var checksum: String
}

/// Reads every session-free table of a database and summarises it.
struct TableSurvey: Sendable {
    var summaries: [TableSummary] = []
    /// Content a relay would not have stored (an envelope that does not parse), one line each; at most 20.
    var problems: [String] = []

    /// Reads each of `tables` from `source`.
    static func of(_ source: some PortableRowSource, tables: [PortableTable] = PortableTable.sessionFree) async throws
        -> TableSurvey
    {
        var survey = TableSurvey()
        for table in tables {
            var digest = TableDigest()
            try await source.forEachPage(of: table) { page in
                for row in page {
                    digest.add(row)
                    survey.checkContent(of: row, in: table)
                }
            }
            survey.summaries.append(TableSummary(table: table.name, rows: digest.rows, checksum: digest.checksum))
        }
        return survey
    }

    private mutating func checkContent(of row: PortableRow, in table: PortableTable) {
        guard self.problems.count < 20 else { return }
        for (value, column) in zip(row, table.columns) where column.kind == .envelope {
            guard case .bytes(let bytes) = value else {
                self.problems.append("\(table.name) row \(self.describeKey(row, table)): \(column.name) is not bytes")
                continue
            }
            do {
                _ = try Envelope(serialized: bytes)
            } catch {
                self.problems.append(
                    "\(table.name) row \(self.describeKey(row, table)): the stored envelope does not parse (\(error))"
                )
            }
        }
    }

    private func describeKey(_ row: PortableRow, _ table: PortableTable) -> String {
        table.key(of: row).map { value in
            switch value {
            case .null: "null"
            case .integer(let integer): String(integer)
            case .text(let text): text
            case .bytes(let bytes): Hex.encode(bytes)
            }
        }.joined(separator: "/")
    }
}
