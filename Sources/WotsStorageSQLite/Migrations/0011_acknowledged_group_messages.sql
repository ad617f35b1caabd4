-- Wots on SQLite, version 11: acknowledged group messages, remembered for a while (docs/GROUPS.md, "Relay storage").
--
-- A group message's body leaves group_bodies with its last slot. Once that last slot was acknowledged, its key stays
-- here (with the relay's first receive time and its tag: the last 256 bytes of the body, the sender's signature over
-- all the others) until the relay forgets it, as acknowledged_messages does for 1:1 messages, so a late retry of the
-- same group send is answered with the first receipt instead of being delivered to every member again.
CREATE TABLE IF NOT EXISTS acknowledged_group_messages (
    sender             BLOB    NOT NULL CHECK (length(sender) = 16),
    message_id         BLOB    NOT NULL CHECK (length(message_id) = 16),
    received_at_ms     INTEGER NOT NULL,
    tag                BLOB    NOT NULL,
    acknowledged_at_ms INTEGER NOT NULL,
    PRIMARY KEY (sender, message_id)
) WITHOUT ROWID;

CREATE INDEX IF NOT EXISTS acknowledged_group_messages_acknowledged_at
    ON acknowledged_group_messages (acknowledged_at_ms);
