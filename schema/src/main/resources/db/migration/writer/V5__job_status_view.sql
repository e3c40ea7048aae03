-- The writer's status view: publication_job.status and remote_id follow the status events the
-- consumer publishes on herald.delivery.events (applied by io.herald.writer.status).
--
-- An event is applied only when it is newer than the one the job shows, so a replayed old event
-- (after its inbox row was purged, or after an offset reset) cannot move a job backwards.
-- "Newer" is the pair (occurredAt, event id) of the event, compared with the pair stored here:
--   * occurredAt, not a rank of the status: delivery states form cycles (RETRY_WAIT -> PENDING ->
--     DISPATCHING, UNCERTAIN -> PENDING, NEEDS_RECONCILIATION -> PENDING), so no fixed order of
--     states tells old from new;
--   * the event id (UUIDv7, time-ordered) breaks ties between events of the same microsecond, so
--     every writer converges on the same final status whatever order events arrive in.
-- Both columns are NULL until the first status event (the job shows REQUESTED); they are set
-- together. Nullable columns without defaults: adding them rewrites nothing and locks briefly.
ALTER TABLE writer.publication_job
    ADD COLUMN status_occurred_at timestamptz,
    ADD COLUMN status_event_id    uuid;
