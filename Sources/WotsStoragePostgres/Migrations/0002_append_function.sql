-- Wots PostgreSQL schema, version 2: appending a group of envelopes in one statement.
--
-- A function body is dollar-quoted ($$ … $$): the runner keeps it in one statement, semicolons and all.

-- Appends envelope n of the parallel arrays to the mailbox of recipients[n], as n separate appends in that order
-- would, and returns one row per envelope: its ordinality (from 1) and
--   'stored'     the new message's sequence and received_at,
--   'duplicate'  the same envelope is held already: its original sequence and received_at,
--   'conflict'   the sender used the message id for a different envelope (no sequence),
--   'full'       the recipient already holds capacities[n] messages (no sequence).
-- Every recipient's counter row is locked first, in byte order, so concurrent groups cannot deadlock on them.
CREATE FUNCTION wots_append_group(
    recipients bytea[],
    senders bytea[],
    message_ids uuid[],
    envelopes bytea[],
    received_ats timestamptz[],
    capacities bigint[]
)
RETURNS TABLE (ordinality bigint, outcome text, sequence bigint, received_at timestamptz)
LANGUAGE plpgsql
AS $$
DECLARE
    item record;
    held record;
    locked bytea;
    next_sequence bigint;
BEGIN
    -- One statement per recipient, in a loop, so the lock order does not depend on how a plan orders its rows.
    FOR locked IN SELECT DISTINCT r FROM unnest(recipients) AS r ORDER BY r LOOP
        INSERT INTO mailbox_counters AS c (recipient, last_sequence, depth) VALUES (locked, 0, 0)
        ON CONFLICT (recipient) DO UPDATE SET last_sequence = c.last_sequence;
    END LOOP;

    FOR item IN
        SELECT * FROM unnest(recipients, senders, message_ids, envelopes, received_ats, capacities)
            WITH ORDINALITY AS u(recipient, sender, message_id, envelope, arrived_at, capacity, n)
        ORDER BY u.n
    LOOP
        ordinality := item.n;
        SELECT m.sequence, m.received_at, m.envelope = item.envelope AS same INTO held
        FROM mailbox_messages AS m
        WHERE m.sender = item.sender AND m.message_id = item.message_id;
        IF FOUND THEN
            outcome := CASE WHEN held.same THEN 'duplicate' ELSE 'conflict' END;
            sequence := CASE WHEN held.same THEN held.sequence END;
            received_at := CASE WHEN held.same THEN held.received_at END;
        ELSE
            UPDATE mailbox_counters AS c SET last_sequence = c.last_sequence + 1, depth = c.depth + 1
            WHERE c.recipient = item.recipient AND c.depth < item.capacity
            RETURNING c.last_sequence INTO next_sequence;
            IF FOUND THEN
                INSERT INTO mailbox_messages (recipient, sequence, sender, message_id, received_at, envelope)
                VALUES (item.recipient, next_sequence, item.sender, item.message_id, item.arrived_at, item.envelope);
                outcome := 'stored';
                sequence := next_sequence;
                received_at := item.arrived_at;
            ELSE
                outcome := 'full';
                sequence := NULL;
                received_at := NULL;
            END IF;
        END IF;
        RETURN NEXT;
    END LOOP;
END;
$$;
