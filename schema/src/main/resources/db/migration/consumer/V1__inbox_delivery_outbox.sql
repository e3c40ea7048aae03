-- Consumer schema: the inbox that makes Kafka redelivery harmless, the delivery that carries one
-- publication to its destination, the consumer's own outbox for status events, and the audit of
-- operator decisions.

CREATE TABLE consumer.inbox (
    message_id  uuid        NOT NULL,
    handler     text        NOT NULL,
    received_at timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (message_id, handler)
);

-- Retention purges the inbox by age, in batches.
CREATE INDEX ix_inbox_received_at ON consumer.inbox (received_at);

CREATE TABLE consumer.delivery (
    id              uuid        PRIMARY KEY,
    -- Commit order of arrival; orders revisions of one (tenant, article, destination) for guarantee 5.
    seq             bigint      GENERATED ALWAYS AS IDENTITY UNIQUE,
    job_id          uuid        NOT NULL,
    message_id      uuid        NOT NULL,
    tenant_id       text        NOT NULL,
    article_id      text        NOT NULL,
    revision_id     text        NOT NULL,
    destination     text        NOT NULL,
    idempotency_key text        NOT NULL,
    payload_hash    text        NOT NULL,
    content         jsonb       NOT NULL,
    state           text        NOT NULL DEFAULT 'PENDING',
    attempts        integer     NOT NULL DEFAULT 0,
    next_attempt_at timestamptz NOT NULL DEFAULT now(),
    claim_owner     text,
    -- Fencing token: incremented by every claim; a result is recorded only with the current token.
    claim_token     bigint      NOT NULL DEFAULT 0,
    lease_until     timestamptz,
    remote_id       text,
    last_error      text,
    uncertain_since timestamptz,
    trace_parent    text,
    trace_state     text,
    created_at      timestamptz NOT NULL DEFAULT now(),
    updated_at      timestamptz NOT NULL DEFAULT now(),
    CONSTRAINT ck_delivery_state CHECK (state IN (
        'PENDING', 'DISPATCHING', 'RETRY_WAIT', 'UNCERTAIN', 'NEEDS_RECONCILIATION',
        'PUBLISHED', 'FAILED', 'ABANDONED', 'CONFLICT')),
    CONSTRAINT ck_delivery_attempts CHECK (attempts >= 0),
    CONSTRAINT ck_delivery_claim CHECK (state <> 'DISPATCHING' OR (claim_owner IS NOT NULL AND lease_until IS NOT NULL))
);

-- One delivery per publication intent, whatever Kafka redelivers.
CREATE UNIQUE INDEX ux_delivery_identity
    ON consumer.delivery (tenant_id, article_id, revision_id, destination);

-- The dispatcher's claim query: due work only.
CREATE INDEX ix_delivery_due
    ON consumer.delivery (next_attempt_at)
    WHERE state IN ('PENDING', 'RETRY_WAIT');

-- Guarantee 5: is an earlier delivery of the same article and destination still open?
CREATE INDEX ix_delivery_open_per_article
    ON consumer.delivery (tenant_id, article_id, destination, seq)
    WHERE state NOT IN ('PUBLISHED', 'FAILED', 'ABANDONED');

-- Expired leases of crashed dispatchers.
CREATE INDEX ix_delivery_lease
    ON consumer.delivery (lease_until)
    WHERE state = 'DISPATCHING';

-- The reconciler's work.
CREATE INDEX ix_delivery_uncertain
    ON consumer.delivery (uncertain_since)
    WHERE state IN ('UNCERTAIN', 'NEEDS_RECONCILIATION');

-- Retention purges finished deliveries by age.
CREATE INDEX ix_delivery_finished
    ON consumer.delivery (updated_at)
    WHERE state IN ('PUBLISHED', 'FAILED', 'ABANDONED');

CREATE TABLE consumer.outbox (
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

CREATE INDEX ix_outbox_occurred_at ON consumer.outbox (occurred_at);

-- Who decided what about a delivery nobody could settle automatically, when and why.
CREATE TABLE consumer.operator_action (
    id          uuid        PRIMARY KEY,
    delivery_id uuid        NOT NULL, -- no foreign key: the audit outlives the purge of finished deliveries
    action      text        NOT NULL,
    actor       text        NOT NULL,
    reason      text        NOT NULL,
    remote_id   text,
    from_state  text        NOT NULL,
    to_state    text        NOT NULL,
    acted_at    timestamptz NOT NULL DEFAULT now(),
    CONSTRAINT ck_operator_action CHECK (action IN ('MARK_PUBLISHED', 'RETRY', 'ABANDON'))
);

CREATE INDEX ix_operator_action_delivery ON consumer.operator_action (delivery_id, acted_at);
