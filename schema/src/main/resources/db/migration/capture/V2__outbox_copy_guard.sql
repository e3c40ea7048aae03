-- Capture set-up shared by the writer and consumer schemas (${schema} is the one being migrated).
-- Debezium 3.6.1 (dbz#1554) resumes after a restart at a WAL position, and events that share one
-- position are skipped. COPY into a table without row triggers uses multi-insert, which writes many
-- rows under one WAL record. A row-level BEFORE INSERT trigger, even a no-op one, makes PostgreSQL
-- insert row by row, so every outbox row gets its own WAL position. Do not drop this trigger.
CREATE OR REPLACE FUNCTION ${schema}.outbox_one_row_per_wal_record() RETURNS trigger
    LANGUAGE plpgsql AS
$$
BEGIN
    RETURN NEW;
END;
$$;

DROP TRIGGER IF EXISTS outbox_one_row_per_wal_record ON ${schema}.outbox;
CREATE TRIGGER outbox_one_row_per_wal_record
    BEFORE INSERT ON ${schema}.outbox
    FOR EACH ROW EXECUTE FUNCTION ${schema}.outbox_one_row_per_wal_record();
