-- The dispatcher claims due work one destination at a time, in due order then commit order
-- (guarantee 5): this index serves that scan directly, without filtering the due rows of every
-- other destination, and lets LIMIT stop at the first rows it needs.
CREATE INDEX ix_delivery_due_per_destination
    ON consumer.delivery (destination, next_attempt_at, seq)
    WHERE state IN ('PENDING', 'RETRY_WAIT');
