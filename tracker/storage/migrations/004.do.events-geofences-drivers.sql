-- Events and their rule inputs: geofences, drivers, custom rules, per-device settings and the
-- per-device state the rules carry from one position to the next. Listed records keep creation
-- times in whole milliseconds, like the API's timestamps, so a page cursor names a row exactly.

-- Bumped in the transaction of every change to an account's geofences or rules, so the
-- ingest path knows when its cached copy is stale (in every tracker process).
ALTER TABLE accounts ADD COLUMN rules_version bigint NOT NULL DEFAULT 0;
-- Speed limit of devices that have none of their own (null: 90 km/h).
ALTER TABLE accounts ADD COLUMN speed_limit_kmh double precision;

CREATE TABLE geofences (
  id          text PRIMARY KEY,
  account_id  text NOT NULL REFERENCES accounts (id),
  name        text NOT NULL,
  description text NOT NULL DEFAULT '',
  -- {"type":"circle","center":{"lat":…,"lng":…},"radius":m} or {"type":"polygon","points":[{"lat":…,"lng":…},…]}
  shape       jsonb NOT NULL,
  created_at  timestamptz NOT NULL DEFAULT date_trunc('milliseconds', now()),
  updated_at  timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX geofences_account_idx ON geofences (account_id, created_at, id);

CREATE TABLE drivers (
  id             text PRIMARY KEY,
  account_id     text NOT NULL REFERENCES accounts (id),
  name           text NOT NULL,
  phone          text NOT NULL DEFAULT '',
  license_number text NOT NULL DEFAULT '',
  -- Identification key (iButton, RFID card) the vehicle reads, unique within the account.
  unique_id      text,
  created_at     timestamptz NOT NULL DEFAULT date_trunc('milliseconds', now()),
  updated_at     timestamptz NOT NULL DEFAULT now(),
  UNIQUE (account_id, unique_id)
);
CREATE INDEX drivers_account_idx ON drivers (account_id, created_at, id);

-- A unit has at most one driver and a driver drives at most one unit.
ALTER TABLE devices ADD COLUMN driver_id text REFERENCES drivers (id) ON DELETE SET NULL;
CREATE UNIQUE INDEX devices_driver_idx ON devices (driver_id) WHERE driver_id IS NOT NULL;

CREATE TABLE rules (
  id          text PRIMARY KEY,
  account_id  text NOT NULL REFERENCES accounts (id),
  name        text NOT NULL,
  enabled     boolean NOT NULL DEFAULT true,
  severity    text NOT NULL CHECK (severity IN ('critical', 'warning', 'info')),
  condition   jsonb NOT NULL,
  -- A geofence in use by a rule cannot be deleted (RESTRICT), so a rule never changes meaning silently.
  geofence_id text REFERENCES geofences (id) ON DELETE RESTRICT,
  time_window jsonb,
  device_ids  text[],
  created_at  timestamptz NOT NULL DEFAULT date_trunc('milliseconds', now()),
  updated_at  timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX rules_account_idx ON rules (account_id, created_at, id);

CREATE TABLE device_settings (
  device_id        text PRIMARY KEY REFERENCES devices (id) ON DELETE CASCADE,
  speed_limit_kmh  double precision,
  fuel_tank_litres double precision,
  fuel_low_litres  double precision,
  fuel_low_percent double precision,
  -- {"odometer":{"startKm":…,"everyKm":…},"engineHours":{"start":…,"every":…}}, either may be absent
  maintenance      jsonb NOT NULL DEFAULT '{}',
  updated_at       timestamptz NOT NULL DEFAULT now()
);

CREATE TABLE device_rule_state (
  device_id  text PRIMARY KEY REFERENCES devices (id) ON DELETE CASCADE,
  state      jsonb NOT NULL,
  updated_at timestamptz NOT NULL DEFAULT now()
);

CREATE TABLE events (
  id         bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  account_id text NOT NULL REFERENCES accounts (id),
  device_id  text NOT NULL REFERENCES devices (id),
  type       text NOT NULL,
  -- Whole milliseconds, like the API's timestamps, so a page cursor names a row exactly.
  created_at timestamptz NOT NULL DEFAULT date_trunc('milliseconds', now()),
  position   jsonb,
  alert_id   bigint REFERENCES alerts (id),
  data       jsonb NOT NULL DEFAULT '{}'
);
CREATE INDEX events_account_idx ON events (account_id, created_at DESC, id DESC);
CREATE INDEX events_device_idx ON events (device_id, created_at DESC, id DESC);
CREATE INDEX events_account_type_idx ON events (account_id, type, created_at DESC, id DESC);

-- One batch opens many alerts at the same now(); page cursors carry milliseconds, so alert times
-- are kept to whole milliseconds too (or a page boundary inside a batch would skip alerts).
UPDATE alerts SET created_at = date_trunc('milliseconds', created_at);
ALTER TABLE alerts ALTER COLUMN created_at SET DEFAULT date_trunc('milliseconds', now());
