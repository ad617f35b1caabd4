-- Wots PostgreSQL schema, version 9: encrypted attachment blobs.
--
-- A blob is announced with its size and recipients, then written only by its uploads, each one chunk row of at most
-- 1 MiB inserted in the transaction that advances blobs.received (the blob's row locked), so the offset is never ahead
-- of the data and relays sharing the database share the blobs. It is deleted when every recipient acknowledged it,
-- or at expires_at (24 hours after creation while unfinished, the relay's retention once complete).
CREATE TABLE blobs (
    id bytea PRIMARY KEY CHECK (octet_length(id) = 16),
    uploader bytea NOT NULL CHECK (octet_length(uploader) = 16),
    size bigint NOT NULL CHECK (size >= 0),
    received bigint NOT NULL CHECK (received >= 0 AND received <= size),
    created_at timestamptz NOT NULL,
    expires_at timestamptz NOT NULL
);

CREATE INDEX blobs_uploader ON blobs (uploader);

CREATE INDEX blobs_expires_at ON blobs (expires_at);

CREATE TABLE blob_recipients (
    blob_id bytea NOT NULL REFERENCES blobs (id) ON DELETE CASCADE,
    recipient bytea NOT NULL CHECK (octet_length(recipient) = 16),
    acknowledged_at timestamptz,
    PRIMARY KEY (blob_id, recipient)
);

CREATE TABLE blob_chunks (
    blob_id bytea NOT NULL REFERENCES blobs (id) ON DELETE CASCADE,
    chunk_offset bigint NOT NULL CHECK (chunk_offset >= 0),
    data bytea NOT NULL CHECK (octet_length(data) BETWEEN 1 AND 1048576),
    PRIMARY KEY (blob_id, chunk_offset)
);
