/// A column of a `PortableTable`: its name in each backend and how its values are carried between them.
package struct PortableColumn: Sendable {
    /// How a column's values are stored in each backend.
    package enum Kind: Sendable {
        /// Bytes in both (BLOB, bytea).
        case bytes
        /// A serialized `Envelope` (bytes in both), which a verified copy must still parse.
        case envelope
        /// Text in both.
        case text
        /// An integer in both.
        case integer
        /// Milliseconds since 1970 in SQLite, `timestamptz` in PostgreSQL.
        case milliseconds
        /// 16 bytes in SQLite, `uuid` in PostgreSQL.
        case uuid
        /// The next sequence number to hand out in SQLite (`next_sequence`), the last one handed out in PostgreSQL
        /// (`last_sequence`); carried as the next.
        case nextSequence
    }

    /// The column's name in SQLite.
    package var name: String
    /// The column's name in PostgreSQL.
    package var postgresName: String
    package var kind: Kind

    package init(_ name: String, _ kind: Kind, postgresName: String? = nil) {
        self.name = name
        self.postgresName = postgresName ?? name
        self.kind = kind
    }
}
