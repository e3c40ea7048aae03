-- The status view updates every job at least once (PUBLISHED) soon after it is inserted. Such an
-- update can be a heap-only tuple (HOT) update, with no new index entry and the new version on the
-- same page, only if no indexed column changes and the page has room:
--   * ix_publication_job_unfinished was partial on status, so every status change was a full
--     update writing a new entry into each index. No query of Herald's reads it (the API looks jobs
--     up by id or business key, the CLI by id); it goes. An operator who wants unfinished jobs fast
--     can create an index of their own, at the same cost per update.
--   * fillfactor 70 keeps 30 % of each page free when jobs are inserted: room for the new versions
--     of that page's jobs until pruning reclaims the old ones (once no transaction sees them). With
--     jobs of about 400 bytes updated 20 consecutive ones per transaction (the worst case: a whole
--     page's jobs in one status batch) 61 % of the updates were HOT at 70, 40 % at 80, under 1 % at
--     100, and the update cost 25 % less than with the partial index. The table took no more room:
--     without HOT each update leaves a dead version behind until vacuum. It applies to pages filled
--     from now on; existing pages stay as they are.
DROP INDEX writer.ix_publication_job_unfinished;
ALTER TABLE writer.publication_job SET (fillfactor = 70);
