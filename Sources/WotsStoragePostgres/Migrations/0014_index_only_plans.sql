-- Wots PostgreSQL schema, version 14: the set-based statements of migration 0013 keep the plan a session makes for
-- them instead of planning every call.
--
-- Migration 0013 planned them for each call (plan_cache_mode = force_custom_plan) because a plan cached while the
-- tables were small went on reading them whole once they had grown. Planning was then about a third of the time
-- PostgreSQL spent in an append or an acknowledgement, and the foreign key from mailbox_expiries, whose check runs
-- once per deleted message, was planned again for each of them too. The relay now runs these functions in
-- transactions that turn sequential scans, hash joins and merge joins off (PostgresDatabase.indexOnlyPlanning), so a
-- plan made on empty tables is the plan of index lookups it would choose on full ones, and is kept.
ALTER FUNCTION wots_acknowledge(bytea[], bytea[], uuid[], timestamptz) RESET plan_cache_mode;
ALTER FUNCTION wots_store_new_group(bytea[], bytea[], uuid[], bytea[], timestamptz[], bigint[], bigint[], bigint[])
RESET plan_cache_mode;
