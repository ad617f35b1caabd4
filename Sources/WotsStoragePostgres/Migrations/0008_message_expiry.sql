-- Wots PostgreSQL schema, version 8: per-message expiry (envelope v2, SECURITY.md "Envelopes").
--
-- The v2 header's expiresAt of each waiting message that has one (not 0), written with the message. A mailbox read
-- leaves out a message whose time has come, and the sweeper deletes it without an expiry notice. A table of its own,
-- as on SQLite, so that `admin migrate` copies it table to table; its row goes with its message however that is
-- deleted. Messages already stored are v1, which never expire.
CREATE TABLE mailbox_expiries (
    recipient bytea NOT NULL,
    sequence bigint NOT NULL,
    expires_at timestamptz NOT NULL,
    PRIMARY KEY (recipient, sequence),
    FOREIGN KEY (recipient, sequence) REFERENCES mailbox_messages (recipient, sequence) ON DELETE CASCADE
);

CREATE INDEX mailbox_expiries_expires_at ON mailbox_expiries (expires_at);

-- wots_append_group (version 6) also stores each envelope's expiry.
DROP FUNCTION wots_append_group(bytea[], bytea[], uuid[], bytea[], timestamptz[], bigint[], bigint[]);

-- Appends envelope n of the parallel arrays to the mailbox of recipients[n], to expire at expires_ats[n]
-- (milliseconds since the epoch; 0: never), as n separate appends in that order would, and returns one row per
-- envelope: its ordinality (from 1) and
--   'stored'      the new message's sequence and received_at,
--   'duplicate'   the same envelope is held already, waiting or acknowledged: its original sequence and received_at,
--   'conflict'    the sender used the message id for a different envelope (no sequence),
--   'full'        the recipient already holds capacities[n] messages (no sequence),
--   'over_quota'  the envelope would take the recipient's waiting bytes past quotas[n] (no sequence).
-- Every recipient's counter row is locked first, in byte order, so concurrent groups cannot deadlock on them.
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
    item record;
    held record;
    room record;
    locked bytea;
    next_sequence bigint;
BEGIN
    -- One statement per recipient, in a loop, so the lock order does not depend on how a plan orders its rows.
    FOR locked IN SELECT DISTINCT r FROM unnest(recipients) AS r ORDER BY r LOOP
        INSERT INTO mailbox_counters AS c (recipient, last_sequence, depth) VALUES (locked, 0, 0)
        ON CONFLICT (recipient) DO UPDATE SET last_sequence = c.last_sequence;
    END LOOP;

    FOR item IN
        SELECT * FROM unnest(
            recipients, senders, message_ids, envelopes, received_ats, capacities, quotas, expires_ats
        ) WITH ORDINALITY AS u(recipient, sender, message_id, envelope, arrived_at, capacity, quota, expires_at, n)
        ORDER BY u.n
    LOOP
        ordinality := item.n;
        SELECT m.sequence, m.received_at, m.envelope = item.envelope AS same INTO held
        FROM mailbox_messages AS m
        WHERE m.sender = item.sender AND m.message_id = item.message_id;
        IF NOT FOUND THEN
            SELECT a.sequence, a.received_at, a.tag = wots_acknowledgement_tag(item.envelope) AS same INTO held
            FROM acknowledged_messages AS a
            WHERE a.sender = item.sender AND a.message_id = item.message_id;
        END IF;
        IF FOUND THEN
            outcome := CASE WHEN held.same THEN 'duplicate' ELSE 'conflict' END;
            sequence := CASE WHEN held.same THEN held.sequence END;
            received_at := CASE WHEN held.same THEN held.received_at END;
        ELSE
            SELECT c.depth < item.capacity AS has_room, octet_length(item.envelope) <= item.quota - c.bytes AS fits
            INTO room
            FROM mailbox_counters AS c WHERE c.recipient = item.recipient;
            IF NOT room.has_room THEN
                outcome := 'full';
            ELSIF NOT room.fits THEN
                outcome := 'over_quota';
            ELSE
                UPDATE mailbox_counters AS c
                SET last_sequence = c.last_sequence + 1, depth = c.depth + 1,
                    bytes = c.bytes + octet_length(item.envelope)
                WHERE c.recipient = item.recipient
                RETURNING c.last_sequence INTO next_sequence;
                outcome := 'stored';
            END IF;
            IF outcome = 'stored' THEN
                INSERT INTO mailbox_messages (recipient, sequence, sender, message_id, received_at, envelope)
                VALUES (item.recipient, next_sequence, item.sender, item.message_id, item.arrived_at, item.envelope);
                IF item.expires_at <> 0 THEN
                    INSERT INTO mailbox_expiries (recipient, sequence, expires_at)
                    VALUES (item.recipient, next_sequence, 'epoch'::timestamptz + item.expires_at * interval '1 ms');
                END IF;
                sequence := next_sequence;
                received_at := item.arrived_at;
            ELSE
                sequence := NULL;
                received_at := NULL;
            END IF;
        END IF;
        RETURN NEXT;
    END LOOP;
END;
$$;
