-- Wots PostgreSQL schema, version 13: an acknowledgement holds its recipients' counters only at its end, and a
-- group of new messages is stored in one statement.
--
-- The relay locked the counter rows of an acknowledgement's recipients before it deleted and remembered the
-- messages, so every append to those recipients (which locks the same rows) waited for that work and the commit.
-- wots_acknowledge deletes and remembers first, and locks the counters last, in byte order as wots_append_group
-- does, so the two never wait on each other in a circle; the expiry sweeper also locks messages before counters.
--
-- Deletes the waiting messages (recipients[n], senders[n], message_ids[n]), remembers each in
-- acknowledged_messages as acknowledged at `acknowledged`, takes them off their mailboxes' depth and bytes, and
-- returns one row per message it deleted. A key asked for twice, or no longer waiting, is returned at most once.
CREATE FUNCTION wots_acknowledge(recipients bytea[], senders bytea[], message_ids uuid[], acknowledged timestamptz)
RETURNS TABLE (deleted_recipient bytea, deleted_sender bytea, deleted_message_id uuid)
LANGUAGE plpgsql
-- Planned for each call's arrays: a plan cached for a session's first calls, when the tables were small, kept
-- scanning them whole once they had grown.
SET plan_cache_mode = force_custom_plan
AS $$
DECLARE
    gone_recipients bytea[];
    gone_senders bytea[];
    gone_ids uuid[];
    gone_sizes bigint[];
BEGIN
    WITH wanted AS (
        SELECT DISTINCT w.recipient, w.sender, w.message_id
        FROM unnest(recipients, senders, message_ids) AS w(recipient, sender, message_id)
    ), deleted AS (
        DELETE FROM mailbox_messages AS m USING wanted AS w
        WHERE m.sender = w.sender AND m.message_id = w.message_id AND m.recipient = w.recipient
        RETURNING m.recipient, m.sender, m.message_id, m.sequence, m.received_at, m.envelope
    ), remembered AS (
        INSERT INTO acknowledged_messages AS a
            (sender, message_id, recipient, sequence, received_at, tag, acknowledged_at)
        SELECT d.sender, d.message_id, d.recipient, d.sequence, d.received_at, wots_acknowledgement_tag(d.envelope),
            acknowledged
        FROM deleted AS d
        ON CONFLICT (sender, message_id) DO NOTHING
    )
    SELECT array_agg(d.recipient), array_agg(d.sender), array_agg(d.message_id),
        array_agg(octet_length(d.envelope)::bigint)
    INTO gone_recipients, gone_senders, gone_ids, gone_sizes
    FROM deleted AS d;

    IF gone_recipients IS NULL THEN
        RETURN;
    END IF;

    PERFORM 1 FROM mailbox_counters AS c WHERE c.recipient = ANY(gone_recipients) ORDER BY c.recipient FOR UPDATE;
    UPDATE mailbox_counters AS c
    SET depth = c.depth - g.count, bytes = c.bytes - g.bytes
    FROM (
        SELECT r.recipient, count(*) AS count, sum(r.size) AS bytes
        FROM unnest(gone_recipients, gone_sizes) AS r(recipient, size)
        GROUP BY r.recipient
    ) AS g
    WHERE c.recipient = g.recipient;

    RETURN QUERY SELECT * FROM unnest(gone_recipients, gone_senders, gone_ids);
END;
$$;

-- Stores every envelope of a group whose recipients' counters wots_append_group has locked, in one statement, when
-- none of its (sender, message id) pairs is held already or repeated within it and each envelope fits its recipient's
-- capacity and quota counting the group's earlier envelopes; returns wots_append_group's rows ('stored' for each),
-- or no row at all, storing nothing, when any of that is not so.
CREATE FUNCTION wots_store_new_group(
    recipients bytea[],
    senders bytea[],
    message_ids uuid[],
    envelopes bytea[],
    received_ats timestamptz[],
    capacities bigint[],
    quotas bigint[],
    expires_ats bigint[]
)
RETURNS TABLE (ordinality bigint, outcome text, sequence bigint, received_at timestamptz)
LANGUAGE plpgsql
-- As wots_acknowledge: a generic plan made while acknowledged_messages was small looked for the group's keys by
-- reading the whole table.
SET plan_cache_mode = force_custom_plan
AS $$
DECLARE
    all_fit boolean;
BEGIN
    SELECT NOT EXISTS (
            SELECT 1 FROM unnest(senders, message_ids) AS u(sender, message_id)
            GROUP BY u.sender, u.message_id HAVING count(*) > 1
        ) AND NOT EXISTS (
            SELECT 1 FROM unnest(senders, message_ids) AS u(sender, message_id)
            JOIN mailbox_messages AS m ON m.sender = u.sender AND m.message_id = u.message_id
        ) AND NOT EXISTS (
            SELECT 1 FROM unnest(senders, message_ids) AS u(sender, message_id)
            JOIN acknowledged_messages AS a ON a.sender = u.sender AND a.message_id = u.message_id
        ) AND NOT EXISTS (
            SELECT 1 FROM (
                SELECT u.recipient, u.capacity, u.quota,
                    row_number() OVER (PARTITION BY u.recipient ORDER BY u.n) AS place,
                    sum(octet_length(u.envelope)) OVER (PARTITION BY u.recipient ORDER BY u.n) AS bytes_so_far
                FROM unnest(recipients, envelopes, capacities, quotas) WITH ORDINALITY
                    AS u(recipient, envelope, capacity, quota, n)
            ) AS i
            JOIN mailbox_counters AS c ON c.recipient = i.recipient
            WHERE c.depth + i.place - 1 >= i.capacity OR c.bytes + i.bytes_so_far > i.quota
        )
    INTO all_fit;

    IF all_fit THEN
        RETURN QUERY
        WITH items AS (
            SELECT u.*, row_number() OVER (PARTITION BY u.recipient ORDER BY u.n) AS place
            FROM unnest(
                recipients, senders, message_ids, envelopes, received_ats, expires_ats
            ) WITH ORDINALITY AS u(recipient, sender, message_id, envelope, arrived_at, expires_at, n)
        ), counted AS (
            UPDATE mailbox_counters AS c
            SET last_sequence = c.last_sequence + g.count, depth = c.depth + g.count, bytes = c.bytes + g.bytes
            FROM (
                SELECT i.recipient, count(*) AS count, sum(octet_length(i.envelope)) AS bytes
                FROM items AS i GROUP BY i.recipient
            ) AS g
            WHERE c.recipient = g.recipient
            RETURNING c.recipient, c.last_sequence - g.count AS base
        ), placed AS (
            SELECT i.*, c.base + i.place AS assigned FROM items AS i JOIN counted AS c ON c.recipient = i.recipient
        ), stored AS (
            INSERT INTO mailbox_messages (recipient, sequence, sender, message_id, received_at, envelope)
            SELECT p.recipient, p.assigned, p.sender, p.message_id, p.arrived_at, p.envelope FROM placed AS p
        ), expiring AS (
            INSERT INTO mailbox_expiries (recipient, sequence, expires_at)
            SELECT p.recipient, p.assigned, 'epoch'::timestamptz + p.expires_at * interval '1 ms'
            FROM placed AS p WHERE p.expires_at <> 0
        )
        SELECT p.n, 'stored'::text, p.assigned, p.arrived_at FROM placed AS p ORDER BY p.n;
    END IF;
END;
$$;

-- Migration 0008's message-by-message append, unchanged, under a name of its own: wots_append_group calls it for a
-- group that wots_store_new_group does not store. It locks the counters again, which its caller already holds.
ALTER FUNCTION wots_append_group(bytea[], bytea[], uuid[], bytea[], timestamptz[], bigint[], bigint[], bigint[])
RENAME TO wots_append_one_by_one;

-- wots_append_group answers as migration 0008's did. It locks the counters, then stores a group that needs no
-- decision message by message through wots_store_new_group, in one statement, and any other group through
-- wots_append_one_by_one. Executing five statements per message while holding the counters made most of an
-- append's time.
CREATE FUNCTION wots_append_group(
    recipients bytea[],
    senders bytea[],
    message_ids uuid[],
    envelopes bytea[],
    received_ats timestamptz[],
    capacities bigint[],
    quotas bigint[],
    expires_ats bigint[]
)
RETURNS TABLE (ordinality bigint, outcome text, sequence bigint, received_at timestamptz)
LANGUAGE plpgsql
AS $$
DECLARE
    locked bytea;
BEGIN
    -- One statement per recipient, in a loop, so the lock order does not depend on how a plan orders its rows.
    FOR locked IN SELECT DISTINCT r FROM unnest(recipients) AS r ORDER BY r LOOP
        INSERT INTO mailbox_counters AS c (recipient, last_sequence, depth) VALUES (locked, 0, 0)
        ON CONFLICT (recipient) DO UPDATE SET last_sequence = c.last_sequence;
    END LOOP;

    RETURN QUERY SELECT * FROM wots_store_new_group(
        recipients, senders, message_ids, envelopes, received_ats, capacities, quotas, expires_ats
    );
    IF NOT FOUND THEN
        RETURN QUERY SELECT * FROM wots_append_one_by_one(
            recipients, senders, message_ids, envelopes, received_ats, capacities, quotas, expires_ats
        );
    END IF;
END;
$$;
