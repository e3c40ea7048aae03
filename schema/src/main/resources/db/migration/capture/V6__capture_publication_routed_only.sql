-- The publication streams only what the relay routes: every change it streams costs the relay a
-- decode, a change event and a transform, whether or not it becomes a Kafka record.
--
-- * publish = 'insert, update': outbox rows are only inserted, then purged by retention (the
--   writer's default retention deletes each row in the transaction that inserted it, so a delete
--   per event); a delete is no event, so deletes and truncates are not published. Updates are: the
--   relay's heartbeat is an upsert into herald_relay.heartbeat.
-- * The outbox's occurred_at is not streamed (a column list, PostgreSQL 15 and later): no router
--   reads it, and Debezium parses every timestamptz it receives, even for a column it then leaves
--   out of the event. The relay's column.exclude.list keeps it out of the events on older servers.
--
-- Dropping and re-adding the table in one transaction changes only the column list: every change
-- is decoded against the publication as of its position in the WAL, where the table is a member
-- either way. Shared by the writer and consumer migrations; idempotent.
DO
$$
BEGIN
    EXECUTE format('ALTER PUBLICATION %I SET (publish = %L)', '${publication}', 'insert, update');
    IF current_setting('server_version_num')::int >= 150000 THEN
        EXECUTE format('ALTER PUBLICATION %I DROP TABLE %I.outbox', '${publication}', '${schema}');
        EXECUTE format('ALTER PUBLICATION %I ADD TABLE %I.outbox (id, aggregate_type, aggregate_id,'
                       ' event_type, tenant_id, payload, trace_parent, trace_state)',
                       '${publication}', '${schema}');
    END IF;
END
$$;
