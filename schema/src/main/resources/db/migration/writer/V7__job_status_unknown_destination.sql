-- The writer's status view shows UNKNOWN_DESTINATION (consumer/V12): a job whose destination the
-- consumer has no configuration for. The check widens; every existing row already satisfies it.
ALTER TABLE writer.publication_job
    DROP CONSTRAINT ck_publication_job_status,
    ADD CONSTRAINT ck_publication_job_status CHECK (status IN (
        'REQUESTED', 'PENDING', 'DISPATCHING', 'RETRY_WAIT', 'UNCERTAIN', 'NEEDS_RECONCILIATION',
        'UNKNOWN_DESTINATION', 'PUBLISHED', 'FAILED', 'ABANDONED', 'CONFLICT'));
