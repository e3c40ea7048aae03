-- When the destination may first have seen a delivery's idempotency key: the start of its dedup
-- window (docs/design.md, "Destination profiles and guarantee tiers"). Set by the first dispatch
-- claim; cleared when a lookup proves "not found" or an operator retries (nothing was created, so
-- the next attempt starts a new window). A retry whose first attempt is older than the
-- destination's window is never sent blindly: it is looked up or goes to an operator.
ALTER TABLE consumer.delivery ADD COLUMN first_attempt_at timestamptz;

-- Deliveries attempted before this column: their creation is no later than their first attempt,
-- so the window is counted from earlier than it began, never later (the safe side).
UPDATE consumer.delivery SET first_attempt_at = created_at WHERE attempts > 0;
