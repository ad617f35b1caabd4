-- Wots PostgreSQL schema, version 12: acknowledged group messages, remembered for a while (docs/GROUPS.md, "Relay
-- storage").
--
-- A group message's body leaves group_bodies with its last slot. Once that last slot was acknowledged, its key stays
-- here (with the relay's first receive time and its tag: the last 256 bytes of the body, the sender's signature over
-- all the others, wots_acknowledgement_tag) until the relay forgets it, as acknowledged_messages does for 1:1
-- messages, so a late retry of the same group send is answered with the first receipt instead of being delivered to
-- every member again. The same table as on SQLite, for `wots-relay admin migrate`.
CREATE TABLE acknowledged_group_messages (
    sender bytea NOT NULL CHECK (octet_length(sender) = 16),
    message_id uuid NOT NULL,
    received_at timestamptz NOT NULL,
    tag bytea NOT NULL,
    acknowledged_at timestamptz NOT NULL,
    PRIMARY KEY (sender, message_id)
);

CREATE INDEX acknowledged_group_messages_acknowledged_at ON acknowledged_group_messages (acknowledged_at);
