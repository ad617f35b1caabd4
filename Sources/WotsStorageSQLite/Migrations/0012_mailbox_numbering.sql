-- Wots on SQLite, version 12: whether a relay process may have handed out mailbox sequence numbers it never wrote.
--
-- The relay numbers a recipient's message when it takes it, before its commit, so a recipient online is handed it at
-- once (SECURITY.md "What the relay checks before storing an envelope"). A process that does so first writes this
-- row and deletes it when it stops cleanly with nothing left to write. A process that finds the row at its start
-- knows the last one stopped without that (kill -9, power loss): before it numbers a recipient's mail it skips more
-- numbers than a process ever hands out unwritten, so no number is given to two messages.
CREATE TABLE IF NOT EXISTS mailbox_numbering (
    singleton     INTEGER NOT NULL PRIMARY KEY CHECK (singleton = 1),
    opened_at_ms  INTEGER NOT NULL
);
