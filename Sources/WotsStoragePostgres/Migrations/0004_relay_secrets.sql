-- Wots on PostgreSQL, version 4: secrets the relay keeps for itself, shared by every relay process on the database.
--
-- challenge-mac: the 32-byte key of the MACs that make login, restore and deletion challenges stateless (a challenge
-- is checked by its MAC and expiry, and stored only once it has been answered, to refuse a second answer).
CREATE TABLE IF NOT EXISTS relay_secrets (
    name  text PRIMARY KEY,
    value bytea NOT NULL
);
