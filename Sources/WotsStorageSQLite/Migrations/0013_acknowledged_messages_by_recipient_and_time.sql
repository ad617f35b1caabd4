-- Wots on SQLite, version 13: acknowledgements are indexed by recipient in the order they were made.
--
-- The index is only for deleting one account's acknowledgements. Keyed on (recipient) alone it also held the primary
-- key (sender, message_id), a random id, so every acknowledgement wrote a page somewhere inside its recipient's range.
-- Keyed on (recipient, acknowledged_at_ms) a new entry lands at the end of its recipient's range, where the last one
-- did, and a transaction of many acknowledgements for the same few recipients writes a few pages instead of one each.
DROP INDEX IF EXISTS acknowledged_messages_recipient;
CREATE INDEX IF NOT EXISTS acknowledged_messages_recipient_acknowledged_at
    ON acknowledged_messages (recipient, acknowledged_at_ms);
