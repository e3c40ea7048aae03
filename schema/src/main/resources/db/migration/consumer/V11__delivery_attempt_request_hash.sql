-- Fencing on the wire (docs/design.md): every request to a destination carries its claim token in
-- Herald-Fencing-Token, and its attempt row now also says what was sent: the SHA-256 (hex) of the
-- exact request body. Two attempts with the same hash sent the same article; an operator comparing
-- a remote article with Herald's history can tell which call created it. NULL when no body was
-- sent (a lookup; a publish withheld or interrupted before it left), and for rows written before
-- this column existed.
ALTER TABLE consumer.delivery_attempt
    ADD COLUMN request_hash text,
    ADD CONSTRAINT ck_delivery_attempt_request_hash CHECK (request_hash ~ '^[0-9a-f]{64}$');
