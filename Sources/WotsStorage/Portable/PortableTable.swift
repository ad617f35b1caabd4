/// A table whose rows move between backends (`admin migrate`) and are checked in backups (`admin verify-backup`).
package struct PortableTable: Sendable {
    package var name: String
    /// Every column copied, the primary key's first.
    package var columns: [PortableColumn]
    /// How many of the first `columns` make up the primary key (rows are read in its order, a page at a time).
    package var primaryKeyCount: Int

    package init(_ name: String, primaryKey: [PortableColumn], others: [PortableColumn]) {
        self.name = name
        self.columns = primaryKey + others
        self.primaryKeyCount = primaryKey.count
    }

    /// The primary key's columns.
    package var primaryKey: ArraySlice<PortableColumn> { self.columns.prefix(self.primaryKeyCount) }

    /// The primary key's values in `row`.
    package func key(of row: PortableRow) -> PortableRow { Array(row.prefix(self.primaryKeyCount)) }
}
