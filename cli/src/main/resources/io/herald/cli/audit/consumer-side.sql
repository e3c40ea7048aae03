-- One row per job id the consumer side knows: its events in Kafka (staged in audit_event), its
-- delivery, its inbox row, its latest status event and its remote articles, in job id order so
-- that the command can merge it with the writer's jobs (another database, perhaps) in one pass.
-- Parameters: since (twice), tenant (twice), the intake's inbox handler, the listed destinations.
WITH ev AS (
    SELECT e.job_id,
           count(*)                                                           AS copies,
           count(DISTINCT e.event_id)                                         AS event_ids,
           count(DISTINCT e.payload_hash)                                     AS event_hashes,
           min(e.payload_hash)                                                AS event_hash,
           bool_or(c.next_offset IS NOT NULL AND e.kafka_offset < c.next_offset) AS consumed,
           bool_or(q.event_id IS NOT NULL)                                    AS dead_lettered,
           min(e.kafka_partition)                                             AS kafka_partition,
           min(e.kafka_offset)                                                AS kafka_offset,
           min(e.tenant_id)                                                   AS event_tenant
    FROM audit_event e
             LEFT JOIN audit_committed c ON c.kafka_partition = e.kafka_partition
             LEFT JOIN (SELECT DISTINCT event_id FROM audit_dlq) q ON q.event_id = e.event_id
    GROUP BY e.job_id),
     d AS (
         SELECT id, job_id, message_id, state, payload_hash, idempotency_key, updated_at,
                uncertain_since, tenant_id, article_id, revision_id, destination
         FROM consumer.delivery
         WHERE ((CAST(? AS timestamptz) IS NULL OR created_at >= ?)
             AND (CAST(? AS text) IS NULL OR tenant_id = ?))
            OR job_id IN (SELECT job_id FROM audit_event)),
     st AS (
         SELECT DISTINCT ON (job_id) job_id, state
         FROM audit_status
         ORDER BY job_id, occurred_at DESC, event_id DESC),
     rem AS (
         SELECT external_reference, count(*) AS articles
         FROM audit_remote
         GROUP BY external_reference)
SELECT coalesce(ev.job_id, d.job_id) AS job_id,
       ev.copies, ev.event_ids, ev.event_hashes, ev.event_hash,
       coalesce(ev.consumed, false), coalesce(ev.dead_lettered, false),
       ev.kafka_partition, ev.kafka_offset,
       d.id, d.state, d.payload_hash, d.updated_at, d.uncertain_since,
       coalesce(d.tenant_id, ev.event_tenant), d.article_id, d.revision_id, d.destination,
       i.message_id IS NOT NULL AS in_inbox,
       st.state                 AS status_event_state,
       coalesce(rem.articles, 0) AS remote_articles,
       coalesce(d.destination = ANY (?), false) AS destination_listed
FROM ev
         FULL JOIN d ON d.job_id = ev.job_id
         LEFT JOIN consumer.inbox i ON i.message_id = d.message_id AND i.handler = ?
         LEFT JOIN st ON st.job_id = coalesce(ev.job_id, d.job_id)
         LEFT JOIN rem ON rem.external_reference = d.idempotency_key
ORDER BY 1
