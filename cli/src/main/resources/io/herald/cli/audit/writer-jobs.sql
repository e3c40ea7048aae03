-- The writer's jobs in the audit's scope, in job id order (the merge with the consumer side).
-- Parameters: since (twice), tenant (twice).
SELECT id, tenant_id, article_id, revision_id, destination, payload_hash, status, created_at
FROM writer.publication_job
WHERE (CAST(? AS timestamptz) IS NULL OR created_at >= ?)
  AND (CAST(? AS text) IS NULL OR tenant_id = ?)
ORDER BY id
