-- Herald's database roles (docs/design.md, "Database roles"). Run once per database by an
-- administrator (a superuser), before the first migration, connected to the database that holds the
-- Herald schemas; idempotent, so running it again (another database of the cluster, a restore, an
-- installation migrated by a superuser until now) is safe. No secret appears here: the passwords are
-- set afterwards (DatabaseRoles.setUp, or ops/postgres/herald-roles.sh from files or the
-- environment); a role without a password cannot pass password authentication.
--
--   herald_migrator  owns the schemas and runs the migrations: CREATE on the database (schemas and
--                    the publication), REPLICATION (the capture migration creates the slot)
--   herald_writer    reads and writes the writer schema, nothing else
--   herald_consumer  reads and writes the consumer schema, nothing else
--   herald_relay     REPLICATION; reads the outbox tables and herald_relay.capture_slot, writes the
--                    heartbeat (Debezium's heartbeat.action.query)
--
-- Grants on tables are applied by the migrations themselves (db/migration/capture/
-- afterMigrate__role_grants.sql, after every run), with default privileges for the tables later
-- migrations create: this script only needs the database, not the schema.

-- Roles are cluster-wide: a role another database's set-up created is reused. Creating races with a
-- concurrent run of this script on another database; duplicate_object is that run having won.
DO
$$
DECLARE
    role_name text;
BEGIN
    FOREACH role_name IN ARRAY ARRAY['herald_migrator', 'herald_writer', 'herald_consumer', 'herald_relay'] LOOP
        IF NOT EXISTS (SELECT FROM pg_roles WHERE rolname = role_name) THEN
            BEGIN
                EXECUTE format('CREATE ROLE %I', role_name);
            EXCEPTION WHEN duplicate_object THEN
                RAISE NOTICE 'role % was created concurrently', role_name;
            END;
        END IF;
    END LOOP;
END
$$;

-- Attributes are set every time, so a role created by hand with more gets exactly these.
ALTER ROLE herald_migrator LOGIN REPLICATION NOSUPERUSER NOCREATEDB NOCREATEROLE NOBYPASSRLS INHERIT;
ALTER ROLE herald_writer   LOGIN NOREPLICATION NOSUPERUSER NOCREATEDB NOCREATEROLE NOBYPASSRLS INHERIT;
ALTER ROLE herald_consumer LOGIN NOREPLICATION NOSUPERUSER NOCREATEDB NOCREATEROLE NOBYPASSRLS INHERIT;
-- The relay ends a former leader's walsender that still holds the slot (pg_terminate_backend): that
-- session is herald_relay's own, which a role may always signal, so pg_signal_backend (which could
-- signal the writer's and the consumer's sessions too) is not granted.
ALTER ROLE herald_relay    LOGIN REPLICATION NOSUPERUSER NOCREATEDB NOCREATEROLE NOBYPASSRLS INHERIT;

DO
$$
BEGIN
    EXECUTE format('GRANT CONNECT ON DATABASE %I TO herald_migrator, herald_writer, herald_consumer, herald_relay',
                   current_database());
    -- CREATE SCHEMA (Flyway creates writer, consumer, herald_relay) and CREATE PUBLICATION.
    EXECUTE format('GRANT CREATE ON DATABASE %I TO herald_migrator', current_database());
END
$$;

-- An installation migrated by another user until now: its schemas, their tables, views, sequences
-- and functions, and the publications holding their tables pass to herald_migrator, which must own
-- a table to add it to a publication and a schema to create in it. Indexes, triggers and the
-- sequences of identity columns follow their tables.
DO
$$
DECLARE
    item record;
BEGIN
    FOR item IN SELECT nspname FROM pg_namespace WHERE nspname IN ('writer', 'consumer', 'herald_relay') LOOP
        EXECUTE format('ALTER SCHEMA %I OWNER TO herald_migrator', item.nspname);
    END LOOP;
    FOR item IN
        SELECT n.nspname, c.relname, c.relkind
        FROM pg_class c
        JOIN pg_namespace n ON n.oid = c.relnamespace
        WHERE n.nspname IN ('writer', 'consumer', 'herald_relay')
          AND c.relkind IN ('r', 'p', 'v', 'm', 'S')
          AND NOT EXISTS (SELECT FROM pg_depend d
                          WHERE d.classid = 'pg_class'::regclass AND d.objid = c.oid AND d.deptype IN ('a', 'i'))
    LOOP
        EXECUTE format('ALTER %s %I.%I OWNER TO herald_migrator',
                       CASE item.relkind WHEN 'v' THEN 'VIEW' WHEN 'm' THEN 'MATERIALIZED VIEW'
                                         WHEN 'S' THEN 'SEQUENCE' ELSE 'TABLE' END,
                       item.nspname, item.relname);
    END LOOP;
    FOR item IN
        SELECT p.oid::regprocedure AS signature
        FROM pg_proc p
        JOIN pg_namespace n ON n.oid = p.pronamespace
        WHERE n.nspname IN ('writer', 'consumer', 'herald_relay')
    LOOP
        EXECUTE format('ALTER ROUTINE %s OWNER TO herald_migrator', item.signature);
    END LOOP;
    FOR item IN
        SELECT DISTINCT pubname FROM pg_publication_tables WHERE schemaname IN ('writer', 'consumer', 'herald_relay')
    LOOP
        EXECUTE format('ALTER PUBLICATION %I OWNER TO herald_migrator', item.pubname);
    END LOOP;
END
$$;
