extension PortableTable {
    /// Every table holding the relay's session-free state, in an order that copies referenced rows first. A table
    /// added by a migration must be added here (one entry) or to `notCopied`: `admin migrate` and
    /// `admin verify-backup` refuse a database holding a table that is in neither list.
    package static let sessionFree: [PortableTable] = [
        PortableTable(
            "directory_entries",
            primaryKey: [PortableColumn("token", .bytes)],
            others: [
                PortableColumn("nickname", .text), PortableColumn("signing_key", .bytes),
                PortableColumn("encryption_key", .bytes), PortableColumn("fingerprint", .bytes),
                PortableColumn("registered_at_ms", .milliseconds, postgresName: "registered_at"),
                PortableColumn("deleted_at_ms", .milliseconds, postgresName: "deleted_at"),
            ]
        ),
        PortableTable(
            "private_records",
            primaryKey: [PortableColumn("token", .bytes)],
            others: [
                PortableColumn("kdf_salt", .bytes), PortableColumn("kdf_n", .integer),
                PortableColumn("kdf_r", .integer),
                PortableColumn("kdf_p", .integer), PortableColumn("sealed_private_keys", .bytes),
                PortableColumn("secret_verifier", .bytes), PortableColumn("avatar_preset", .text),
                PortableColumn("avatar_image", .bytes),
            ]
        ),
        PortableTable(
            "mailbox_counters",
            primaryKey: [PortableColumn("recipient", .bytes)],
            others: [
                PortableColumn("next_sequence", .nextSequence, postgresName: "last_sequence"),
                PortableColumn("depth", .integer),
            ]
        ),
        PortableTable(
            "mailbox_messages",
            primaryKey: [PortableColumn("recipient", .bytes), PortableColumn("sequence", .integer)],
            others: [
                PortableColumn("sender", .bytes), PortableColumn("message_id", .uuid),
                PortableColumn("received_at_ms", .milliseconds, postgresName: "received_at"),
                PortableColumn("envelope", .envelope),
            ]
        ),
        PortableTable(
            "mailbox_expiries",
            primaryKey: [PortableColumn("recipient", .bytes), PortableColumn("sequence", .integer)],
            others: [PortableColumn("expires_at_ms", .milliseconds, postgresName: "expires_at")]
        ),
        PortableTable(
            "acknowledged_messages",
            primaryKey: [PortableColumn("sender", .bytes), PortableColumn("message_id", .uuid)],
            others: [
                PortableColumn("recipient", .bytes), PortableColumn("sequence", .integer),
                PortableColumn("received_at_ms", .milliseconds, postgresName: "received_at"),
                PortableColumn("tag", .bytes),
                PortableColumn("acknowledged_at_ms", .milliseconds, postgresName: "acknowledged_at"),
            ]
        ),
        PortableTable(
            "group_bodies",
            primaryKey: [PortableColumn("sender", .bytes), PortableColumn("message_id", .uuid)],
            others: [
                PortableColumn("received_at_ms", .milliseconds, postgresName: "received_at"),
                PortableColumn("expires_at_ms", .milliseconds, postgresName: "expires_at"),
                PortableColumn("slots_waiting", .integer), PortableColumn("body", .bytes),
            ]
        ),
        PortableTable(
            "group_slots",
            primaryKey: [PortableColumn("recipient", .bytes), PortableColumn("sequence", .integer)],
            others: [
                PortableColumn("sender", .bytes), PortableColumn("message_id", .uuid),
                PortableColumn("wrapped_key", .bytes), PortableColumn("charged_bytes", .integer),
            ]
        ),
        PortableTable(
            "acknowledged_group_messages",
            primaryKey: [PortableColumn("sender", .bytes), PortableColumn("message_id", .uuid)],
            others: [
                PortableColumn("received_at_ms", .milliseconds, postgresName: "received_at"),
                PortableColumn("tag", .bytes),
                PortableColumn("acknowledged_at_ms", .milliseconds, postgresName: "acknowledged_at"),
            ]
        ),
        PortableTable(
            "account_suspensions",
            primaryKey: [PortableColumn("token", .bytes)],
            others: [PortableColumn("suspended_at_ms", .milliseconds, postgresName: "suspended_at")]
        ),
        PortableTable(
            "invites",
            primaryKey: [PortableColumn("id", .text)],
            others: [
                PortableColumn("code_hash", .bytes), PortableColumn("maximum_uses", .integer),
                PortableColumn("uses", .integer),
                PortableColumn("created_at_ms", .milliseconds, postgresName: "created_at"),
                PortableColumn("expires_at_ms", .milliseconds, postgresName: "expires_at"),
                PortableColumn("revoked_at_ms", .milliseconds, postgresName: "revoked_at"),
            ]
        ),
        PortableTable(
            "expiry_notices",
            primaryKey: [PortableColumn("sender", .bytes), PortableColumn("message_id", .uuid)],
            others: [
                PortableColumn("recipient", .bytes),
                PortableColumn("received_at_ms", .milliseconds, postgresName: "received_at"),
                PortableColumn("expired_at_ms", .milliseconds, postgresName: "expired_at"),
            ]
        ),
        PortableTable(
            "blobs",
            primaryKey: [PortableColumn("id", .bytes)],
            others: [
                PortableColumn("uploader", .bytes), PortableColumn("size", .integer),
                PortableColumn("received", .integer),
                PortableColumn("created_at_ms", .milliseconds, postgresName: "created_at"),
                PortableColumn("expires_at_ms", .milliseconds, postgresName: "expires_at"),
            ]
        ),
        PortableTable(
            "blob_latest_expiries",
            primaryKey: [PortableColumn("blob_id", .bytes)],
            others: [PortableColumn("latest_expires_at_ms", .milliseconds, postgresName: "latest_expires_at")]
        ),
        PortableTable(
            "blob_recipients",
            primaryKey: [PortableColumn("blob_id", .bytes), PortableColumn("recipient", .bytes)],
            others: [PortableColumn("acknowledged_at_ms", .milliseconds, postgresName: "acknowledged_at")]
        ),
        PortableTable(
            "blob_chunks",
            primaryKey: [PortableColumn("blob_id", .bytes), PortableColumn("chunk_offset", .integer)],
            others: [PortableColumn("data", .bytes)]
        ),
        PortableTable(
            "log_leaves",
            primaryKey: [PortableColumn("leaf_index", .integer)],
            others: [PortableColumn("token", .bytes), PortableColumn("leaf", .bytes)]
        ),
        PortableTable(
            "log_nodes",
            primaryKey: [PortableColumn("level", .integer), PortableColumn("node_index", .integer)],
            others: [PortableColumn("hash", .bytes)]
        ),
        PortableTable("relay_identity", primaryKey: [PortableColumn("relay_id", .bytes)], others: []),
        PortableTable(
            "relay_secrets",
            primaryKey: [PortableColumn("name", .text)],
            others: [PortableColumn("value", .bytes)]
        ),
    ]

    /// Tables left behind on purpose: logins and sessions (clients log in again), the migrations' own record (the
    /// target's migrations write it), PostgreSQL's per-process heartbeats and SQLite's hour-long log of account
    /// changes for relays polling the same file (PostgreSQL relays hear of changes through NOTIFY), and SQLite's
    /// per-mailbox byte totals, which the target recomputes from the messages it received (`derivedColumns`), and
    /// SQLite's record of a process numbering mail before writing it (PostgreSQL numbers mail in its transactions).
    package static let notCopied: Set<String> = [
        "auth_challenges", "auth_sessions", "schema_migrations", "relay_heartbeats", "account_changes",
        "mailbox_sizes", "mailbox_numbering",
    ]

    /// Columns of copied tables that are not copied but computed again on the target from what was copied:
    /// PostgreSQL's byte total per mailbox (SQLite keeps it in `mailbox_sizes`), and PostgreSQL's constant
    /// `relay_identity.singleton` key (SQLite's is a constant too).
    package static let derivedColumns: [String: Set<String>] = [
        "relay_identity": ["singleton"],
        "mailbox_counters": ["bytes"],
    ]

    /// The names in `tables` that are neither copied nor left behind on purpose: state this build would lose.
    package static func unknown(among tables: [String]) -> [String] {
        let known = Set(Self.sessionFree.map(\.name)).union(Self.notCopied)
        return tables.filter { !known.contains($0) }.sorted()
    }

    /// What `source` holds that this build would not copy: tables on neither list, and columns of copied tables
    /// missing from their `PortableTable` (a column a newer migration added), one line each.
    package static func uncopied(in source: some PortableRowSource, postgres: Bool) async throws -> [String] {
        var findings = Self.unknown(among: try await source.tableNames()).map { "table \($0)" }
        for table in Self.sessionFree {
            let listed = Set(table.columns.map { postgres ? $0.postgresName : $0.name })
            let ignored = Self.derivedColumns[table.name] ?? []
            for column in try await source.columnNames(of: table.name)
            where !listed.contains(column) && !ignored.contains(column) {
                findings.append("column \(table.name).\(column)")
            }
        }
        return findings
    }
}
