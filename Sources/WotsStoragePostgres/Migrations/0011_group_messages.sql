-- Wots PostgreSQL schema, version 11: group messages (SECURITY.md "Groups", docs/GROUPS.md "Relay storage").
--
-- A group message's body (the version 3 envelope, up to 256 recipients) is stored ONCE in group_bodies; each
-- recipient gets one small row in group_slots holding its 256-byte wrapped content key and a sequence number taken
-- from its mailbox_counters row (locked in recipient byte order), so the slot has a place among the recipient's 1:1
-- messages and any two group messages reach every shared mailbox in the same order. slots_waiting counts the slots
-- left; the body is deleted with its last slot. The same tables as on SQLite, for `wots-relay admin migrate`.
CREATE TABLE group_bodies (
    sender bytea NOT NULL CHECK (octet_length(sender) = 16),
    message_id uuid NOT NULL,
    received_at timestamptz NOT NULL,
    expires_at timestamptz,
    slots_waiting integer NOT NULL CHECK (slots_waiting >= 0),
    body bytea NOT NULL,
    PRIMARY KEY (sender, message_id)
);

CREATE INDEX group_bodies_expires_at ON group_bodies (expires_at) WHERE expires_at IS NOT NULL;

-- The retention sweep deletes the oldest bodies first.
CREATE INDEX group_bodies_received_at ON group_bodies (received_at);

-- charged_bytes: what the slot counts against its recipient's mailbox quota (the body's size plus 256).
CREATE TABLE group_slots (
    recipient bytea NOT NULL CHECK (octet_length(recipient) = 16),
    sequence bigint NOT NULL,
    sender bytea NOT NULL,
    message_id uuid NOT NULL,
    wrapped_key bytea NOT NULL,
    charged_bytes bigint NOT NULL CHECK (charged_bytes >= 0),
    PRIMARY KEY (recipient, sequence),
    UNIQUE (sender, message_id, recipient),
    FOREIGN KEY (sender, message_id) REFERENCES group_bodies (sender, message_id) ON DELETE CASCADE
);
