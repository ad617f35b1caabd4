-- Wots on SQLite, version 1: directory, private records, mailboxes, relay authentication.
-- The file lives in Sources/WotsStorageSQLite/Migrations; schema/sqlite links to it (SwiftPM copies a symlinked
-- resource folder as a dangling link). Applied once by SQLiteDatabase and recorded in schema_migrations;
-- IF NOT EXISTS keeps a rerun harmless.
-- Times are milliseconds since 1970-01-01T00:00:00Z; tokens are their 16 raw bytes.

-- The public directory. A deleted account keeps its row with deleted_at_ms set (a tombstone), so the
-- UNIQUE constraints alone keep its nickname and token from ever being registered again.
CREATE TABLE IF NOT EXISTS directory_entries (
    token            BLOB    NOT NULL PRIMARY KEY CHECK (length(token) = 16),
    nickname         TEXT    NOT NULL COLLATE NOCASE UNIQUE,
    signing_key      BLOB    NOT NULL,
    encryption_key   BLOB    NOT NULL,
    fingerprint      BLOB    NOT NULL CHECK (length(fingerprint) = 32),
    registered_at_ms INTEGER NOT NULL,
    deleted_at_ms    INTEGER
);

-- Keyset pagination walks live nicknames only: `WHERE deleted_at_ms IS NULL AND nickname > ? ORDER BY nickname`.
CREATE INDEX IF NOT EXISTS directory_entries_live_nickname
    ON directory_entries (nickname) WHERE deleted_at_ms IS NULL;

-- Sealed private records; the relay stores what it cannot open.
CREATE TABLE IF NOT EXISTS private_records (
    token               BLOB    NOT NULL PRIMARY KEY CHECK (length(token) = 16),
    kdf_salt            BLOB    NOT NULL,
    kdf_n               INTEGER NOT NULL,
    kdf_r               INTEGER NOT NULL,
    kdf_p               INTEGER NOT NULL,
    sealed_private_keys BLOB    NOT NULL,
    secret_verifier     BLOB    NOT NULL,
    avatar_preset       TEXT,
    avatar_image        BLOB,
    CHECK (avatar_preset IS NULL OR avatar_image IS NULL)
);

-- One row per recipient that ever got mail: the next sequence number (never reused, so the row outlives
-- acknowledgements and mailbox deletion) and how many messages wait.
CREATE TABLE IF NOT EXISTS mailbox_counters (
    recipient     BLOB    NOT NULL PRIMARY KEY,
    next_sequence INTEGER NOT NULL CHECK (next_sequence >= 1),
    depth         INTEGER NOT NULL CHECK (depth >= 0)
) WITHOUT ROWID;

-- Waiting envelopes, stored as Envelope.serialized. UNIQUE (sender, message_id) makes a retried send idempotent.
CREATE TABLE IF NOT EXISTS mailbox_messages (
    recipient      BLOB    NOT NULL,
    sequence       INTEGER NOT NULL,
    sender         BLOB    NOT NULL,
    message_id     BLOB    NOT NULL CHECK (length(message_id) = 16),
    received_at_ms INTEGER NOT NULL,
    envelope       BLOB    NOT NULL,
    PRIMARY KEY (recipient, sequence),
    UNIQUE (sender, message_id)
);

CREATE INDEX IF NOT EXISTS mailbox_messages_recipient_message_id
    ON mailbox_messages (recipient, message_id);
CREATE INDEX IF NOT EXISTS mailbox_messages_received_at
    ON mailbox_messages (received_at_ms);

-- The relay's own id, made at its first start: exactly one row.
CREATE TABLE IF NOT EXISTS relay_identity (
    singleton INTEGER NOT NULL PRIMARY KEY CHECK (singleton = 1),
    relay_id  BLOB    NOT NULL
);

-- Single-use login nonces.
CREATE TABLE IF NOT EXISTS auth_challenges (
    nonce         BLOB    NOT NULL PRIMARY KEY,
    expires_at_ms INTEGER NOT NULL
) WITHOUT ROWID;

CREATE INDEX IF NOT EXISTS auth_challenges_expires_at ON auth_challenges (expires_at_ms);

-- Bearer sessions by the hash of their secret; the secret itself is never stored.
CREATE TABLE IF NOT EXISTS auth_sessions (
    hash          BLOB    NOT NULL PRIMARY KEY,
    token         BLOB    NOT NULL,
    expires_at_ms INTEGER NOT NULL
) WITHOUT ROWID;

CREATE INDEX IF NOT EXISTS auth_sessions_token ON auth_sessions (token);
CREATE INDEX IF NOT EXISTS auth_sessions_expires_at ON auth_sessions (expires_at_ms);
