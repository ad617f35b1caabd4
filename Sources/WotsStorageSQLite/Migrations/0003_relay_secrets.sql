-- Wots on SQLite, version 3: secrets the relay keeps for itself.
--
-- challenge-mac: the 32-byte key of the MACs that make login, restore and deletion challenges stateless (a challenge
-- is checked by its MAC and expiry, and stored only once it has been answered, to refuse a second answer).
CREATE TABLE IF NOT EXISTS relay_secrets (
    name  TEXT PRIMARY KEY,
    value BLOB NOT NULL
);
