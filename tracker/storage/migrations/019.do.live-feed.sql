-- The live feed's retained log: what the stream shows (positions, events, command status changes),
-- each under an id that orders it across every tracker process, kept for STREAM_RETENTION_SECONDS so
-- a client reconnecting with Last-Event-ID gets what it missed. `data` is the JSON the stream sends.
CREATE TABLE feed_log (
  id bigserial PRIMARY KEY,
  account_id text NOT NULL,
  device_id text NOT NULL,
  kind text NOT NULL CHECK (kind IN ('position', 'event', 'command')),
  event_type text,
  data text NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX feed_log_account_idx ON feed_log (account_id, id);
CREATE INDEX feed_log_created_idx ON feed_log (created_at);

-- Accounts whose positions go to the log: one with a stream open, and for the retention period after
-- its last stream closed (so a reconnecting client misses nothing). The others cost ingest nothing.
CREATE TABLE feed_interest (
  account_id text PRIMARY KEY,
  until timestamptz NOT NULL
);
