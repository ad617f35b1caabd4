-- Wots on SQLite, version 4: what the relay's operator changes (suspensions, invites), and a change log that tells
-- a running relay about changes another process (`wots-relay admin`) made to the same file.

-- A suspended account keeps its directory entry (its nickname stays taken) but cannot log in or send.
CREATE TABLE IF NOT EXISTS account_suspensions (
    token           BLOB    NOT NULL PRIMARY KEY CHECK (length(token) = 16),
    suspended_at_ms INTEGER NOT NULL
) WITHOUT ROWID;

-- Invites by the SHA-256 of their code; the code itself is shown once, at creation, and never stored.
-- A redemption is `UPDATE … SET uses = uses + 1 WHERE … uses < maximum_uses` in the registration's transaction.
CREATE TABLE IF NOT EXISTS invites (
    id            TEXT    NOT NULL PRIMARY KEY,
    code_hash     BLOB    NOT NULL UNIQUE CHECK (length(code_hash) = 32),
    maximum_uses  INTEGER NOT NULL CHECK (maximum_uses >= 1),
    uses          INTEGER NOT NULL DEFAULT 0 CHECK (uses >= 0 AND uses <= maximum_uses),
    created_at_ms INTEGER NOT NULL,
    expires_at_ms INTEGER,
    revoked_at_ms INTEGER
);

-- Accounts suspended, unsuspended or deleted, in commit order: relays on the file poll for rows past the last id
-- they saw and drop what they keep about those accounts (sessions, open streams). Rows older than an hour go.
CREATE TABLE IF NOT EXISTS account_changes (
    id            INTEGER PRIMARY KEY AUTOINCREMENT,
    token         BLOB    NOT NULL CHECK (length(token) = 16),
    changed_at_ms INTEGER NOT NULL
);
