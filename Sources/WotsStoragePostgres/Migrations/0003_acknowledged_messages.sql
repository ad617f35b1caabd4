-- Wots PostgreSQL schema, version 3: acknowledgements by (sender, message id), remembered for a while; heartbeats.
--
-- A message is identified by its sender and the id the sender gave it, never by the id alone. Once acknowledged, a
-- message leaves mailbox_messages but its key stays in acknowledged_messages (with its first receipt and its
-- tag: the last 256 bytes of the envelope, the sender's signature over all the others) until the relay forgets it, so a late retry of the same
-- send is answered with the first receipt instead of being delivered twice.
CREATE TABLE acknowledged_messages (
    sender bytea NOT NULL CHECK (octet_length(sender) = 16),
    message_id uuid NOT NULL,
    recipient bytea NOT NULL CHECK (octet_length(recipient) = 16),
    sequence bigint NOT NULL,
    received_at timestamptz NOT NULL,
    tag bytea NOT NULL,
    acknowledged_at timestamptz NOT NULL,
    PRIMARY KEY (sender, message_id)
);

CREATE INDEX acknowledged_messages_acknowledged_at ON acknowledged_messages (acknowledged_at);
CREATE INDEX acknowledged_messages_recipient ON acknowledged_messages (recipient);

-- Acknowledgements now find a message by (sender, message_id), which the unique constraint's index serves.
DROP INDEX mailbox_messages_recipient_message_id;

-- One row per relay process: its readiness probe writes here, so /readyz proves the database takes writes.
CREATE TABLE relay_heartbeats (
    node text PRIMARY KEY,
    at timestamptz NOT NULL
);

-- What is kept of an acknowledged envelope to tell a retry from a different envelope with the same id: its last 256
-- bytes, the sender's RSA-2048 signature over all the others (Envelope.acknowledgementTag in Swift).
CREATE FUNCTION wots_acknowledgement_tag(envelope bytea) RETURNS bytea
LANGUAGE sql IMMUTABLE STRICT
AS $$ SELECT substring(envelope FROM greatest(octet_length(envelope) - 255, 1)) $$;

-- wots_append_group (version 2) also answers 'duplicate' or 'conflict' for a remembered acknowledged message.
DROP FUNCTION wots_append_group(bytea[], bytea[], uuid[], bytea[], timestamptz[], bigint[]);

-- Appends envelope n of the parallel arrays to the mailbox of recipients[n], as n separate appends in that order
-- would, and returns one row per envelope: its ordinality (from 1) and
--   'stored'     the new message's sequence and received_at,
--   'duplicate'  the same envelope is held already, waiting or acknowledged: its original sequence and received_at,
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
