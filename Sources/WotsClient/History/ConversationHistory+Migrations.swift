import GRDB

extension ConversationHistory {
    /// The history file's schema, one numbered step at a time; a step is never changed once released.
    static var migrator: DatabaseMigrator {
        var migrator = DatabaseMigrator()
        migrator.registerMigration("1 history") { db in
            try db.execute(
                sql: """
                    CREATE TABLE history_key (account BLOB PRIMARY KEY, sealed BLOB NOT NULL);
                    CREATE TABLE messages (
                        sender BLOB NOT NULL, id BLOB NOT NULL, peer BLOB NOT NULL,
                        sent_at INTEGER NOT NULL, expires_at INTEGER, status TEXT NOT NULL, content BLOB NOT NULL,
                        PRIMARY KEY (sender, id)
                    );
                    CREATE INDEX messages_by_peer ON messages (peer, sent_at);
                    CREATE INDEX messages_by_expiry ON messages (expires_at) WHERE expires_at IS NOT NULL;
                    CREATE TABLE conversations (peer BLOB PRIMARY KEY, disappear_after INTEGER NOT NULL DEFAULT 0);
                    """
            )
        }
        migrator.registerMigration("2 avatars") { db in
            try db.execute(sql: "ALTER TABLE conversations ADD COLUMN avatar TEXT")
        }
        migrator.registerMigration("3 timer order") { db in
            try db.execute(
                sql: """
                    ALTER TABLE conversations ADD COLUMN timer_set_at INTEGER NOT NULL DEFAULT 0;
                    ALTER TABLE conversations ADD COLUMN timer_set_by BLOB NOT NULL DEFAULT X'';
                    """
            )
        }
        migrator.registerMigration("4 group receipts") { db in
            // Who each group message this account sent went to, and how far it got with each of them.
            try db.execute(
                sql: """
                    CREATE TABLE member_statuses (
                        sender BLOB NOT NULL, id BLOB NOT NULL, member BLOB NOT NULL, status TEXT NOT NULL,
                        PRIMARY KEY (sender, id, member)
                    ) WITHOUT ROWID;
                    """
            )
        }
        return migrator
    }
}
