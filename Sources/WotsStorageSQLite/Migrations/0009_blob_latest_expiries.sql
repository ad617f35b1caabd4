-- Wots on SQLite, version 9: a disappearing attachment's blob goes with its message.
--
-- The expiry of the message carrying a blob, for a message with a timer. The blob's expires_at_ms is never later,
-- while unfinished or once complete, so the sweeper deletes it on time. A table of its own rather than a column, so
-- that this file, like every migration, can run again harmlessly; its row goes with its blob.
CREATE TABLE IF NOT EXISTS blob_latest_expiries (
    blob_id              BLOB    NOT NULL PRIMARY KEY CHECK (length(blob_id) = 16),
    latest_expires_at_ms INTEGER NOT NULL,
    FOREIGN KEY (blob_id) REFERENCES blobs (id) ON DELETE CASCADE
) WITHOUT ROWID;
