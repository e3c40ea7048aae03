-- No silent dead end (docs/design.md "Delivery states"): a delivery for a destination this
-- consumer has no configuration for starts in UNKNOWN_DESTINATION, announced by its status event,
-- instead of waiting PENDING for a dispatcher that never comes. The check widens; every existing
-- row already satisfies it (re-checking them costs one scan under the migration's lock).
ALTER TABLE consumer.delivery
    DROP CONSTRAINT ck_delivery_state,
    ADD CONSTRAINT ck_delivery_state CHECK (state IN (
        'PENDING', 'DISPATCHING', 'RETRY_WAIT', 'UNCERTAIN', 'NEEDS_RECONCILIATION',
        'UNKNOWN_DESTINATION', 'PUBLISHED', 'FAILED', 'ABANDONED', 'CONFLICT'));
