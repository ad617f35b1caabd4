-- Wots on SQLite, version 5: per-mailbox byte quotas and expiry notices.
--
-- The serialized size of the messages waiting in each mailbox, kept with mailbox_counters.depth in the same
-- transactions, so an append checks the byte quota as atomically as the message count. A table of its own rather
-- than a column, so that this file, like every migration, can run again harmlessly. Existing mailboxes are counted
-- here.
CREATE TABLE IF NOT EXISTS mailbox_sizes (
    recipient BLOB    NOT NULL PRIMARY KEY,
    bytes     INTEGER NOT NULL CHECK (bytes >= 0)
) WITHOUT ROWID;

INSERT OR IGNORE INTO mailbox_sizes (recipient, bytes)
SELECT recipient, SUM(length(envelope)) FROM mailbox_messages GROUP BY recipient;

-- A message that waited longer than the retention period is deleted undelivered, and its sender finds a notice here
-- (the relay already knows each stored message's sender, for (sender, id) idempotence). A notice is deleted when its
-- sender clears it, when it is itself older than the retention period, or with the sender's account.
CREATE TABLE IF NOT EXISTS expiry_notices (
    sender         BLOB    NOT NULL CHECK (length(sender) = 16),
    message_id     BLOB    NOT NULL CHECK (length(message_id) = 16),
    recipient      BLOB    NOT NULL CHECK (length(recipient) = 16),
    received_at_ms INTEGER NOT NULL,
    expired_at_ms  INTEGER NOT NULL,
    PRIMARY KEY (sender, message_id)
) WITHOUT ROWID;

CREATE INDEX IF NOT EXISTS expiry_notices_expired_at ON expiry_notices (expired_at_ms);
