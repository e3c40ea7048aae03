-- An operator's pause of a destination (`herald destinations pause D` / `resume D`, through the
-- consumer's operator API): while `paused`, no instance claims the destination's deliveries; they
-- wait as PENDING or RETRY_WAIT, intake and every other destination keep flowing. One row per
-- destination ever paused, holding the last decision: who, why, when. Durable, so a pause
-- survives restarts; every instance reads the table every second or so (one small scan).
-- The circuit breaker is not here: it is each instance's own judgement, kept in memory.
CREATE TABLE consumer.destination_pause (
    destination text        PRIMARY KEY,
    paused      boolean     NOT NULL,
    actor       text        NOT NULL,
    reason      text        NOT NULL,
    changed_at  timestamptz NOT NULL DEFAULT now()
);
