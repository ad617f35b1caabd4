-- Wots PostgreSQL schema, version 15: the append and acknowledgement functions carry their own planner settings.
--
-- Since migration 0014 the relay opened each append and acknowledgement transaction with a statement that turned
-- sequential scans, hash joins and merge joins off for it (set_config(..., true)), so that the plans a session keeps
-- for these functions are the index lookups they need at any size of the tables. That statement cost a full exchange
-- with the server per transaction: a quarter of the statements the relay sends for each group commit. The settings
-- now belong to the two functions the relay calls (a function's SET clause holds while it runs, for everything it
-- calls and every trigger its statements fire), and the relay's transactions are BEGIN, the call and COMMIT.
--
-- A relay from before this migration still sends its own settings, which are the same: it runs correctly against
-- this schema.
ALTER FUNCTION wots_append_group(bytea[], bytea[], uuid[], bytea[], timestamptz[], bigint[], bigint[], bigint[])
SET enable_seqscan = off SET enable_hashjoin = off SET enable_mergejoin = off;
ALTER FUNCTION wots_acknowledge(bytea[], bytea[], uuid[], timestamptz)
SET enable_seqscan = off SET enable_hashjoin = off SET enable_mergejoin = off;
