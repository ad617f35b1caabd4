/// A database whose session-free state can be read table by table, a page at a time, in primary-key order.
package protocol PortableRowSource: Sendable {
    /// Every table in the database (not the backend's own catalog tables).
    func tableNames() async throws -> [String]

    /// The columns of `table`, by the backend's own names.
    func columnNames(of table: String) async throws -> [String]

    /// Up to `limit` rows of `table` whose primary key comes after `key` (from the start when nil), in key order.
    func rows(of table: PortableTable, after key: PortableRow?, limit: Int) async throws -> [PortableRow]
}

extension PortableRowSource {
    /// Calls `body` with every row of `table`, `pageSize` rows at a time.
    package func forEachPage(
        of table: PortableTable,
        pageSize: Int = 500,
        _ body: ([PortableRow]) async throws -> Void
    ) async throws {
        var key: PortableRow?
        while true {
            let page = try await self.rows(of: table, after: key, limit: pageSize)
            if page.isEmpty { return }
            try await body(page)
            if page.count < pageSize { return }
            key = table.key(of: page[page.count - 1])
        }
    }
}
