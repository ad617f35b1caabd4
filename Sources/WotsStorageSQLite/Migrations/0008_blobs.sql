-- Wots on SQLite, version 8: encrypted attachment blobs.
--
-- A blob is announced with its size and recipients, then written only by its uploads, each one chunk row of at most
-- 1 MiB inserted in the transaction that advances blobs.received, so the offset is never ahead of the data. It is
-- deleted when every recipient acknowledged it, or at expires_at_ms (24 hours after creation while unfinished, the
-- relay's retention once complete).
CREATE TABLE IF NOT EXISTS blobs (
    id            BLOB    NOT NULL PRIMARY KEY CHECK (length(id) = 16),
    uploader      BLOB    NOT NULL CHECK (length(uploader) = 16),
    size          INTEGER NOT NULL CHECK (size >= 0),
    received      INTEGER NOT NULL CHECK (received >= 0 AND received <= size),
    created_at_ms INTEGER NOT NULL,
    expires_at_ms INTEGER NOT NULL
) WITHOUT ROWID;

CREATE INDEX IF NOT EXISTS blobs_uploader ON blobs (uploader);
CREATE INDEX IF NOT EXISTS blobs_expires_at ON blobs (expires_at_ms);

CREATE TABLE IF NOT EXISTS blob_recipients (
    blob_id            BLOB    NOT NULL CHECK (length(blob_id) = 16),
    recipient          BLOB    NOT NULL CHECK (length(recipient) = 16),
    acknowledged_at_ms INTEGER,
    PRIMARY KEY (blob_id, recipient)
) WITHOUT ROWID;

-- A rowid table: chunk rows are large, and WITHOUT ROWID suits small rows only.
CREATE TABLE IF NOT EXISTS blob_chunks (
    blob_id      BLOB    NOT NULL CHECK (length(blob_id) = 16),
    chunk_offset INTEGER NOT NULL CHECK (chunk_offset >= 0),
    data         BLOB    NOT NULL CHECK (length(data) BETWEEN 1 AND 1048576),
    PRIMARY KEY (blob_id, chunk_offset)
);
