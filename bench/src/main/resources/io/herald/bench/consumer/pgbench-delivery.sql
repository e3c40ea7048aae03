-- The SQL one delivery costs the consumer, as pgbench runs it: intake (inbox + delivery in one
-- transaction), claim (the dispatcher's claim query), completion (fenced update + status event).
-- Each pgbench client uses its own destination, so its claim always finds the row it inserted.
\set n random(1, 2000000000)
BEGIN;
INSERT INTO consumer.inbox (message_id, handler) VALUES (gen_random_uuid(), 'consumer.delivery-intake') ON CONFLICT DO NOTHING;
INSERT INTO consumer.delivery AS d (id, job_id, message_id, tenant_id, article_id, revision_id, destination, idempotency_key, payload_hash, content, trace_parent, trace_state)
VALUES (gen_random_uuid(), gen_random_uuid(), gen_random_uuid(), 't1', 'a-' || :client_id || '-' || :n, 'r-1', 'pgbench-' || :client_id, md5(random()::text) || md5(random()::text), md5(random()::text) || md5(random()::text), '{"title":"Benchmark","body":"Text of the article"}'::jsonb, NULL, NULL)
ON CONFLICT (tenant_id, article_id, revision_id, destination) DO NOTHING
RETURNING d.id;
COMMIT;
WITH due AS (
  SELECT d.id FROM consumer.delivery d
   WHERE d.destination = 'pgbench-' || :client_id AND d.state IN ('PENDING', 'RETRY_WAIT') AND d.next_attempt_at <= now()
     AND d.seq = (SELECT min(e.seq) FROM consumer.delivery e WHERE e.tenant_id = d.tenant_id AND e.article_id = d.article_id
                  AND e.destination = d.destination AND e.state NOT IN ('PUBLISHED', 'FAILED', 'ABANDONED'))
   ORDER BY d.next_attempt_at, d.seq LIMIT 1 FOR UPDATE OF d SKIP LOCKED)
UPDATE consumer.delivery d SET state = 'DISPATCHING', claim_owner = 'pgbench', claim_token = d.claim_token + 1,
       lease_until = now() + 120000 * interval '1 millisecond', attempts = d.attempts + 1, updated_at = now()
  FROM due WHERE d.id = due.id
RETURNING quote_literal(d.id::text) AS claimed, d.claim_token AS token \gset
BEGIN;
UPDATE consumer.delivery d SET state = 'PUBLISHED', remote_id = COALESCE('art-' || :n, d.remote_id), last_error = NULL,
       next_attempt_at = now(), uncertain_since = d.uncertain_since, claim_owner = NULL, lease_until = NULL, updated_at = now()
 WHERE d.id = :claimed::uuid AND d.claim_token = :token AND d.state = 'DISPATCHING'
RETURNING d.id;
INSERT INTO consumer.outbox (id, aggregate_type, aggregate_id, event_type, tenant_id, payload, trace_parent, trace_state, occurred_at)
VALUES (gen_random_uuid(), 'delivery', 't1/a/pgbench', 'PublicationPublished', 't1', '{"state":"PUBLISHED","remoteId":"art"}'::jsonb, NULL, NULL, now());
COMMIT;
