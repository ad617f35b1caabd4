/// One stored value in the form every backend agrees on, so a row read from SQLite and the same row read back from
/// PostgreSQL compare equal: times are milliseconds since 1970, message ids their 16 bytes, counters the next sequence.
package enum PortableValue: Sendable, Hashable {
    case null
    case integer(Int64)
    case text(String)
    case bytes([UInt8])
}

/// One row of a `PortableTable`, its values in the table's column order.
package typealias PortableRow = [PortableValue]
