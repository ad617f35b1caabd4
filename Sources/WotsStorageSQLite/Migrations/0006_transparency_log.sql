-- Wots on SQLite, version 6: the transparency log of directory changes (SECURITY.md, "Key transparency").
--
-- log_leaves: every leaf's canonical bytes, numbered from 0 with no gap; appended in the same transaction as the
-- directory change it records. log_nodes: the hash of every complete subtree (level 0: the leaf hashes), which never
-- changes once written, so an inclusion or consistency proof is O(log n) point reads.
CREATE TABLE IF NOT EXISTS log_leaves (
    leaf_index INTEGER PRIMARY KEY,
    token      BLOB NOT NULL,
    leaf       BLOB NOT NULL
);
CREATE INDEX IF NOT EXISTS log_leaves_by_token ON log_leaves (token, leaf_index);

CREATE TABLE IF NOT EXISTS log_nodes (
    level      INTEGER NOT NULL,
    node_index INTEGER NOT NULL,
    hash       BLOB    NOT NULL,
    PRIMARY KEY (level, node_index)
) WITHOUT ROWID;
