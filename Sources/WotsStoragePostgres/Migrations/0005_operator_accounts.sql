-- Wots on PostgreSQL, version 5: what the relay's operator changes. Other relay processes hear of suspensions and
-- deletions through `NOTIFY wots_mail` (an account notification) sent in the same transaction.

-- A suspended account keeps its directory entry (its nickname stays taken) but cannot log in or send.
CREATE TABLE IF NOT EXISTS account_suspensions (
    token        bytea       PRIMARY KEY CHECK (length(token) = 16),
    suspended_at timestamptz NOT NULL
);

-- Invites by the SHA-256 of their code; the code itself is shown once, at creation, and never stored.
-- A redemption is `UPDATE … SET uses = uses + 1 WHERE … uses < maximum_uses` in the registration's transaction: the
-- row lock makes a concurrent redemption re-check the condition, so a one-use invite admits one registration.
CREATE TABLE IF NOT EXISTS invites (
    id           text        PRIMARY KEY,
    code_hash    bytea       NOT NULL UNIQUE CHECK (length(code_hash) = 32),
    maximum_uses integer     NOT NULL CHECK (maximum_uses >= 1),
    uses         integer     NOT NULL DEFAULT 0 CHECK (uses >= 0 AND uses <= maximum_uses),
    created_at   timestamptz NOT NULL,
    expires_at   timestamptz,
    revoked_at   timestamptz
);
