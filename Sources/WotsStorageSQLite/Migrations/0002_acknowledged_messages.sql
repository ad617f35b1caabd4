-- Wots on SQLite, version 2: acknowledgements by (sender, message id), remembered for a while.
--
-- A message is identified by its sender and the id the sender gave it, never by the id alone. Once its recipient
-- acknowledges it, the message leaves mailbox_messages but its key stays here (with its first receipt and its
-- tag: the last 256 bytes of the envelope, the sender's signature over all the others) until the relay forgets it, so a late retry of the same
-- send is answered with the first receipt instead of being delivered twice.
CREATE TABLE IF NOT EXISTS acknowledged_messages (
    sender             BLOB    NOT NULL CHECK (length(sender) = 16),
    message_id         BLOB    NOT NULL CHECK (length(message_id) = 16),
    recipient          BLOB    NOT NULL CHECK (length(recipient) = 16),
    sequence           INTEGER NOT NULL,
    received_at_ms     INTEGER NOT NULL,
    tag          BLOB    NOT NULL,
    acknowledged_at_ms INTEGER NOT NULL,
    PRIMARY KEY (sender, message_id)
) WITHOUT ROWID;

CREATE INDEX IF NOT EXISTS acknowledged_messages_acknowledged_at ON acknowledged_messages (acknowledged_at_ms);
CREATE INDEX IF NOT EXISTS acknowledged_messages_recipient ON acknowledged_messages (recipient);

-- Acknowledgements now find a message by (sender, message_id), which the UNIQUE constraint's index serves.
DROP INDEX IF EXISTS mailbox_messages_recipient_message_id;
