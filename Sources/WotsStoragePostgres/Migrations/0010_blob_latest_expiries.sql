-- Wots PostgreSQL schema, version 10: a disappearing attachment's blob goes with its message.
--
-- The expiry of the message carrying a blob, for a message with a timer. The blob's expires_at is never later, while
-- unfinished or once complete, so the sweeper deletes it on time. A table of its own, as on SQLite, so both backends
-- hold the same tables for `wots-relay admin migrate`.
CREATE TABLE blob_latest_expiries (
    blob_id bytea PRIMARY KEY REFERENCES blobs (id) ON DELETE CASCADE,
    latest_expires_at timestamptz NOT NULL
);
