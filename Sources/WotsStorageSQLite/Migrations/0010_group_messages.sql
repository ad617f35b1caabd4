-- Wots on SQLite, version 10: group messages (SECURITY.md "Groups", docs/GROUPS.md "Relay storage").
--
-- A group message's body (the version 3 envelope, up to 256 recipients) is stored ONCE in group_bodies; each
-- recipient gets one small row in group_slots holding its 256-byte wrapped content key and a sequence number taken
-- from its mailbox_counters row, so the slot has a place among the recipient's 1:1 messages. slots_waiting counts
-- the slots left; the body is deleted with its last slot (acknowledged, expired, or its mailbox deleted).
CREATE TABLE IF NOT EXISTS group_bodies (
    sender         BLOB    NOT NULL CHECK (length(sender) = 16),
    message_id     BLOB    NOT NULL CHECK (length(message_id) = 16),
    received_at_ms INTEGER NOT NULL,
    expires_at_ms  INTEGER,
    slots_waiting  INTEGER NOT NULL CHECK (slots_waiting >= 0),
    body           BLOB    NOT NULL,
    PRIMARY KEY (sender, message_id)
);

CREATE INDEX IF NOT EXISTS group_bodies_expires_at ON group_bodies (expires_at_ms) WHERE expires_at_ms IS NOT NULL;

-- The retention sweep deletes the oldest bodies first.
CREATE INDEX IF NOT EXISTS group_bodies_received_at ON group_bodies (received_at_ms);

-- charged_bytes: what the slot counts against its recipient's mailbox quota (the body's size plus 256).
CREATE TABLE IF NOT EXISTS group_slots (
    recipient     BLOB    NOT NULL CHECK (length(recipient) = 16),
    sequence      INTEGER NOT NULL,
    sender        BLOB    NOT NULL,
    message_id    BLOB    NOT NULL,
    wrapped_key   BLOB    NOT NULL,
    charged_bytes INTEGER NOT NULL CHECK (charged_bytes >= 0),
    PRIMARY KEY (recipient, sequence),
    UNIQUE (sender, message_id, recipient),
    FOREIGN KEY (sender, message_id) REFERENCES group_bodies (sender, message_id) ON DELETE CASCADE
) WITHOUT ROWID;
