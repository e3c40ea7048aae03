-- Writer schema: one row per publication intent, and the outbox the relay streams from the WAL.
-- Flyway runs this with search_path set to the writer schema; names are still qualified for clarity.

CREATE TABLE writer.publication_job (
    id              uuid        PRIMARY KEY,
    tenant_id       text        NOT NULL,
    article_id      text        NOT NULL,
    revision_id     text        NOT NULL,
    destination     text        NOT NULL,
    idempotency_key text        NOT NULL,
    payload_hash    text        NOT NULL,
    content         jsonb       NOT NULL,
    status          text        NOT NULL DEFAULT 'REQUESTED',
    remote_id       text,
    created_at      timestamptz NOT NULL DEFAULT now(),
    updated_at      timestamptz NOT NULL DEFAULT now(),
    trace_parent    text,
    trace_state     text,
    CONSTRAINT ck_publication_job_status CHECK (status IN (
        'REQUESTED', 'PENDING', 'DISPATCHING', 'RETRY_WAIT', 'UNCERTAIN', 'NEEDS_RECONCILIATION',
        'PUBLISHED', 'FAILED', 'ABANDONED', 'CONFLICT')),
    CONSTRAINT ck_publication_job_hashes CHECK (
        idempotency_key ~ '^[0-9a-f]{64}$' AND payload_hash ~ '^[0-9a-f]{64}$')
);

-- Guarantee 1: the database, not the application, decides which of two racing requests wins.
CREATE UNIQUE INDEX ux_publication_job_identity
    ON writer.publication_job (tenant_id, article_id, revision_id, destination);

-- Status views and operators look for jobs that are not finished yet; finished ones are the bulk.
CREATE INDEX ix_publication_job_unfinished
    ON writer.publication_job (tenant_id, created_at)
    WHERE status NOT IN ('PUBLISHED', 'FAILED', 'ABANDONED');

CREATE TABLE writer.outbox (
    id             uuid        PRIMARY KEY,
    aggregate_type text        NOT NULL,
    aggregate_id   text        NOT NULL,
    event_type     text        NOT NULL,
    tenant_id      text        NOT NULL,
    payload        jsonb       NOT NULL,
    trace_parent   text,
    trace_state    text,
    occurred_at    timestamptz NOT NULL DEFAULT now()
);

-- Retention purges by age in batches (keep mode); UUIDv7 ids are time-ordered as well.
CREATE INDEX ix_outbox_occurred_at ON writer.outbox (occurred_at);

-- Status events from herald.delivery.events, deduplicated like every other consumer.
CREATE TABLE writer.inbox (
    message_id  uuid        NOT NULL,
    handler     text        NOT NULL,
    received_at timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (message_id, handler)
);

CREATE INDEX ix_inbox_received_at ON writer.inbox (received_at);
