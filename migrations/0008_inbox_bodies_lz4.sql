-- The stored bodies (raw bytes, payload, headers) compressed with lz4 instead of pglz. An inbox
-- row with a 1.5 KB body passes Postgres's 2 KB TOAST threshold, so every INSERT and every
-- UPDATE of it (the worker finishing it) tried pglz on the body and payload; pglz gave up
-- (less than 25 % saved) and stored them raw, after spending the CPU. lz4 is faster and does
-- compress them (1,478 -> 1,117 bytes of a bench body). bench/PERFORMANCE.md has the figures.
-- Only new values are compressed so; the rows already stored stay as they are. A server built
-- without lz4, or older than PostgreSQL 14, keeps pglz: nothing else depends on it.
DO $$
BEGIN
  IF current_setting('server_version_num')::int >= 140000 THEN
    EXECUTE 'ALTER TABLE inbox_events
               ALTER COLUMN raw_body SET COMPRESSION lz4,
               ALTER COLUMN payload SET COMPRESSION lz4,
               ALTER COLUMN headers SET COMPRESSION lz4';
    EXECUTE 'ALTER TABLE rejected_deliveries
               ALTER COLUMN raw_body SET COMPRESSION lz4,
               ALTER COLUMN headers SET COMPRESSION lz4';
  END IF;
EXCEPTION
  WHEN feature_not_supported THEN
    RAISE NOTICE 'this PostgreSQL has no lz4: the inbox keeps pglz compression';
END
$$;
