-- ix_delivery_due (next_attempt_at, for PENDING and RETRY_WAIT rows) was the claim's index until
-- V5 gave each destination its own ordered range (ix_delivery_due_per_destination, the same
-- predicate). Nothing reads it since: the claim and the per-destination due counts go through the
-- V5 index. Every delivery enters PENDING at least once, so it cost one index entry per delivery
-- (and per retry) for nothing, one of the twelve a delivery's insert, claim and result write.
DROP INDEX consumer.ix_delivery_due;
