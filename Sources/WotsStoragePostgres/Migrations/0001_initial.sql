-- Wots PostgreSQL schema, version 1.
--
-- Migrations are applied in file-name order by WotsStoragePostgres, each once, inside one transaction that holds an
-- advisory lock, and recorded in schema_migrations. Each statement ends with a semicolon at the end of a line
-- (the runner sends statements one by one); do not put semicolons inside a statement.

-- The public directory. A deleted account stays as a tombstone (deleted_at set), so the unique constraints keep its
-- nickname and token from ever being bound to new keys. Nicknames are stored lower-cased and compared byte-wise
-- (COLLATE "C"), the same order as every other backend.
CREATE TABLE directory_entries (
    token bytea PRIMARY KEY CHECK (octet_length(token) = 16),
    nickname text COLLATE "C" NOT NULL,
    signing_key bytea NOT NULL,
    encryption_key bytea NOT NULL,
    fingerprint bytea NOT NULL CHECK (octet_length(fingerprint) = 32),
    registered_at timestamptz NOT NULL,
    deleted_at timestamptz,
    CONSTRAINT directory_entries_nickname_key UNIQUE (nickname)
);

-- Keyset pagination over live entries: WHERE deleted_at IS NULL AND nickname > $1 ORDER BY nickname LIMIT $2.
CREATE INDEX directory_entries_live_nickname ON directory_entries (nickname) WHERE deleted_at IS NULL;

-- Sealed private records: the relay stores what it cannot open.
CREATE TABLE private_records (
    token bytea PRIMARY KEY CHECK (octet_length(token) = 16),
    kdf_salt bytea NOT NULL,
    kdf_n bigint NOT NULL,
    kdf_r bigint NOT NULL,
    kdf_p bigint NOT NULL,
    sealed_private_keys bytea NOT NULL,
    secret_verifier bytea NOT NULL,
    avatar_preset text,
    avatar_image bytea,
    CHECK (avatar_preset IS NULL OR avatar_image IS NULL)
);

-- One row per recipient: the last sequence handed out and how many messages wait. Appends lock this row, so
-- appends to one recipient serialise and commit in sequence order; the row outlives acknowledgements so a sequence
-- is never reused.
CREATE TABLE mailbox_counters (
    recipient bytea PRIMARY KEY CHECK (octet_length(recipient) = 16),
    last_sequence bigint NOT NULL CHECK (last_sequence >= 0),
    depth integer NOT NULL CHECK (depth >= 0)
);

-- Envelopes waiting for their recipient, in the canonical serialized form. UNIQUE (sender, message_id) makes a
-- retried send idempotent while the first copy waits; an acknowledged id may be used again, as in every backend.
CREATE TABLE mailbox_messages (
    recipient bytea NOT NULL,
    sequence bigint NOT NULL,
    sender bytea NOT NULL,
    message_id uuid NOT NULL,
    received_at timestamptz NOT NULL,
    envelope bytea NOT NULL,
    PRIMARY KEY (recipient, sequence),
    CONSTRAINT mailbox_messages_sender_message_id_key UNIQUE (sender, message_id)
);

CREATE INDEX mailbox_messages_recipient_message_id ON mailbox_messages (recipient, message_id);
CREATE INDEX mailbox_messages_received_at ON mailbox_messages (received_at);

-- The relay's own id, made at its first start and shared by every relay process on this database.
CREATE TABLE relay_identity (
    singleton boolean PRIMARY KEY DEFAULT true CHECK (singleton),
    relay_id bytea NOT NULL
);

-- Single-use login challenges.
CREATE TABLE auth_challenges (
    nonce bytea PRIMARY KEY,
    expires_at timestamptz NOT NULL
);

CREATE INDEX auth_challenges_expires_at ON auth_challenges (expires_at);

-- Bearer sessions, by the SHA-256 of their secret.
CREATE TABLE auth_sessions (
    hash bytea PRIMARY KEY,
    token bytea NOT NULL,
    expires_at timestamptz NOT NULL
);

CREATE INDEX auth_sessions_token ON auth_sessions (token);
CREATE INDEX auth_sessions_expires_at ON auth_sessions (expires_at);
