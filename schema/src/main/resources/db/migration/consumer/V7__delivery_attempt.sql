-- The attempt history of a delivery: one row per call to a destination under a claim (a publish
-- or a reconciler's lookup), what `herald trace` shows as the chain of custody.
--
-- Written in the transaction that records the call's result (Deliveries.complete), one insert
-- beside the fenced update. A result the fencing token refuses still gets its row, with
-- recorded_state NULL: the call was made and may have taken effect at the destination, which is
-- exactly what an operator needs to see when a second remote article turns up. A claim whose
-- holder died before recording anything has no row; its expiry is the UNCERTAIN status event.
--
-- Operator decisions stay in consumer.operator_action; bulk reconciliation steps without a call
-- (UNCERTAIN -> PENDING at an idempotent destination) are status events, not attempts.
CREATE TABLE consumer.delivery_attempt (
    -- No foreign key: the retention purge deletes attempts together with their finished delivery
    -- (one statement), and a late fenced result must never fail on a purged row.
    delivery_id    uuid        NOT NULL,
    -- Every claim increments the delivery's token, so one claim is one attempt row.
    claim_token    bigint      NOT NULL,
    -- The delivery's attempt count under this claim (a lookup keeps the count it looks after).
    attempt        integer     NOT NULL,
    kind           text        NOT NULL,
    claim_owner    text        NOT NULL,
    -- Database time (the clock of leases and due times): ended_at is the recording transaction's
    -- now(), started_at that minus the call's duration measured by the caller.
    started_at     timestamptz NOT NULL,
    ended_at       timestamptz NOT NULL,
    -- The destination's answer; NULL when none came (timeout, broken connection, not sent).
    http_status    integer,
    -- What the call established: published, retry, permanent, uncertain (a publish); found,
    -- not-found, unavailable (a lookup).
    outcome        text        NOT NULL,
    -- The state the result moved the delivery to; NULL when the fencing token refused it.
    recorded_state text,
    remote_id      text,
    error          text,
    PRIMARY KEY (delivery_id, claim_token),
    CONSTRAINT ck_delivery_attempt_kind CHECK (kind IN ('PUBLISH', 'LOOKUP')),
    CONSTRAINT ck_delivery_attempt_times CHECK (ended_at >= started_at),
    -- Bounded so that a destination's error page cannot bloat the table (Attempt trims it first).
    CONSTRAINT ck_delivery_attempt_error CHECK (length(error) <= 1000)
);
