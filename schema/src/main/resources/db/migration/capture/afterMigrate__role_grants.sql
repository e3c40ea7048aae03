-- The grants of Herald's database roles (db/roles/herald-roles.sql) on the schema just migrated
-- (${schema}), applied after every migration run: a callback, not a versioned migration, so an
-- installation whose roles were created after its tables gets them on its next start too. Without
-- the roles (processes connecting as the owner) it does nothing. Shared by the writer and consumer
-- migrations.
DO
$$
DECLARE
    process_role constant text := 'herald_${schema}';
BEGIN
    IF NOT EXISTS (SELECT FROM pg_roles WHERE rolname = process_role) THEN
        RETURN;
    END IF;
    -- The process's own schema: its tables (and the sequences of their identity columns), nothing
    -- else. Default privileges grant the tables later migrations create when they are created, for
    -- the user running the migrations (herald_migrator).
    EXECUTE format('GRANT USAGE ON SCHEMA %I TO %I', '${schema}', process_role);
    EXECUTE format('GRANT SELECT, INSERT, UPDATE, DELETE ON ALL TABLES IN SCHEMA %I TO %I', '${schema}', process_role);
    EXECUTE format('GRANT USAGE, SELECT ON ALL SEQUENCES IN SCHEMA %I TO %I', '${schema}', process_role);
    EXECUTE format('ALTER DEFAULT PRIVILEGES IN SCHEMA %I GRANT SELECT, INSERT, UPDATE, DELETE ON TABLES TO %I',
                   '${schema}', process_role);
    EXECUTE format('ALTER DEFAULT PRIVILEGES IN SCHEMA %I GRANT USAGE, SELECT ON SEQUENCES TO %I',
                   '${schema}', process_role);
    -- Flyway's history belongs to the migrations alone: a process may not rewrite which ran.
    EXECUTE format('REVOKE ALL ON TABLE %I.flyway_schema_history FROM %I', '${schema}', process_role);

    IF EXISTS (SELECT FROM pg_roles WHERE rolname = 'herald_relay') THEN
        -- The relay reads the outbox (Debezium reads the captured tables' definitions; the rows come
        -- from the WAL), the slot the schema set-up registered, and upserts its heartbeat.
        EXECUTE format('GRANT USAGE ON SCHEMA %I TO herald_relay', '${schema}');
        EXECUTE format('GRANT SELECT ON TABLE %I.outbox TO herald_relay', '${schema}');
        GRANT USAGE ON SCHEMA herald_relay TO herald_relay;
        GRANT SELECT ON TABLE herald_relay.capture_slot TO herald_relay;
        GRANT SELECT, INSERT, UPDATE ON TABLE herald_relay.heartbeat TO herald_relay;
    END IF;
END
$$;
