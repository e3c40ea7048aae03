-- Which dead letters `herald dlq replay` put back on their topic, and when. One row per dead
-- letter (its position in the DLQ topic): inserted, ON CONFLICT DO NOTHING, in the transaction
-- that waits for Kafka to acknowledge the replayed record, so a second replay of the same dead
-- letter finds the row and changes nothing, and `herald dlq list` shows what was replayed.
-- The event's effect is guarded by the inbox as for any record; this table makes the replay
-- itself visible and once.
CREATE TABLE consumer.dlq_replay (
    dlq_topic     text        NOT NULL,
    dlq_partition integer     NOT NULL,
    dlq_offset    bigint      NOT NULL,
    message_id    uuid,        -- the record's `id` header
    -- <topic>-<partition>@<offset> of the record produced; set before the replaying transaction
    -- commits (the row is inserted first, so that it locks the dead letter against a concurrent replay)
    replayed_to   text,
    replayed_at   timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (dlq_topic, dlq_partition, dlq_offset)
);
