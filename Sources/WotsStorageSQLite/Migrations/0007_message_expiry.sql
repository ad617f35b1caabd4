-- Wots on SQLite, version 7: per-message expiry (envelope v2, SECURITY.md "Envelopes").
--
-- The v2 header's expiresAt of each waiting message that has one (not 0), written with the message. A mailbox read
-- leaves out a message whose time has come, and the sweeper deletes it without an expiry notice. A table of its own
-- rather than a column, so that this file, like every migration, can run again harmlessly; its row goes with its
-- message however that is deleted (acknowledged, expired, the mailbox deleted). Messages already stored are v1,
-- which never expire.
CREATE TABLE IF NOT EXISTS mailbox_expiries (
    recipient     BLOB    NOT NULL,
    sequence      INTEGER NOT NULL,
    expires_at_ms INTEGER NOT NULL,
    PRIMARY KEY (recipient, sequence),
    FOREIGN KEY (recipient, sequence) REFERENCES mailbox_messages (recipient, sequence) ON DELETE CASCADE
) WITHOUT ROWID;

CREATE INDEX IF NOT EXISTS mailbox_expiries_expires_at ON mailbox_expiries (expires_at_ms);
