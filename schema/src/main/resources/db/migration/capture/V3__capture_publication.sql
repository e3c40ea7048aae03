-- The relay's capture set-up, created with the schema so that no outbox row can be committed before
-- the publication and (next migration) the replication slot exist: guarantee 2 holds even for rows
-- written before the relay ever ran. Shared by the writer and consumer migrations; idempotent.
CREATE SCHEMA IF NOT EXISTS herald_relay;

-- Debezium's heartbeat.action.query writes here so the slot's confirmed_flush_lsn keeps advancing
-- while the outbox tables are idle and other tables fill the WAL.
CREATE TABLE IF NOT EXISTS herald_relay.heartbeat (
    id       text        PRIMARY KEY,
    beat_at  timestamptz NOT NULL DEFAULT now()
);

-- Which slot the schema set-up created, and where its stream began: the relay compares this with the
-- live slot and with its stored offsets to refuse a start that could skip events.
CREATE TABLE IF NOT EXISTS herald_relay.capture_slot (
    slot_name        text        PRIMARY KEY,
    database_name    text        NOT NULL,
    consistent_point pg_lsn      NOT NULL,
    created_at       timestamptz NOT NULL DEFAULT now()
);

DO
$$
BEGIN
    IF NOT EXISTS (SELECT 1 FROM pg_publication WHERE pubname = '${publication}') THEN
        EXECUTE format('CREATE PUBLICATION %I', '${publication}');
    END IF;
    IF NOT EXISTS (SELECT 1 FROM pg_publication_tables
                   WHERE pubname = '${publication}' AND schemaname = 'herald_relay' AND tablename = 'heartbeat') THEN
        EXECUTE format('ALTER PUBLICATION %I ADD TABLE herald_relay.heartbeat', '${publication}');
    END IF;
    IF NOT EXISTS (SELECT 1 FROM pg_publication_tables
                   WHERE pubname = '${publication}' AND schemaname = '${schema}' AND tablename = 'outbox') THEN
        EXECUTE format('ALTER PUBLICATION %I ADD TABLE %I.outbox', '${publication}', '${schema}');
    END IF;
END
$$;
