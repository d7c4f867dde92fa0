-- Commands beyond locate: what each carries (setInterval's seconds, custom's text or hex), the token
-- that sent it (the audit of engine commands; never the token itself), and the number the device
-- echoes in its reply where the protocol has one (GT06's server flag), so replies find their command.
ALTER TABLE commands
  ADD COLUMN attributes jsonb NOT NULL DEFAULT '{}'::jsonb,
  ADD COLUMN token_id text,
  ADD COLUMN seq integer;
CREATE INDEX commands_device_created_idx ON commands (device_id, created_at DESC, id DESC);
