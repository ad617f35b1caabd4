-- Wots on PostgreSQL, version 7: the transparency log of directory changes (SECURITY.md, "Key transparency").
--
-- log_leaves: every leaf's canonical bytes, numbered from 0 with no gap; appended in the same transaction as the
-- directory change it records. Every relay process on the database shares this one log: an append takes
-- LOCK TABLE log_leaves IN SHARE ROW EXCLUSIVE MODE, which serializes appenders and lets readers through.
-- log_nodes: the hash of every complete subtree (level 0: the leaf hashes), never changed once written, so an
-- inclusion or consistency proof is O(log n) index reads.
CREATE TABLE IF NOT EXISTS log_leaves (
    leaf_index bigint PRIMARY KEY CHECK (leaf_index >= 0),
    token      bytea  NOT NULL,
    leaf       bytea  NOT NULL
);
CREATE INDEX IF NOT EXISTS log_leaves_by_token ON log_leaves (token, leaf_index);

CREATE TABLE IF NOT EXISTS log_nodes (
    level      smallint NOT NULL CHECK (level BETWEEN 0 AND 63),
    node_index bigint   NOT NULL CHECK (node_index >= 0),
    hash       bytea    NOT NULL CHECK (length(hash) = 32),
    PRIMARY KEY (level, node_index)
);
