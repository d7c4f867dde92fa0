-- Positions, partitioned by device time (monthly). The primary key also drops records a device
-- sends twice (buffered records re-sent after a lost ACK).
CREATE TABLE positions (
  device_id   text NOT NULL,
  device_time timestamptz NOT NULL,
  server_time timestamptz NOT NULL DEFAULT now(),
  valid       boolean NOT NULL,
  lat         double precision NOT NULL,
  lng         double precision NOT NULL,
  speed       real NOT NULL,
  heading     real NOT NULL,
  altitude    real,
  satellites  smallint,
  attributes  jsonb NOT NULL DEFAULT '{}',
  PRIMARY KEY (device_id, device_time)
) PARTITION BY RANGE (device_time);
-- Device clocks can be far off: such records are kept here rather than lost.
CREATE TABLE positions_default PARTITION OF positions DEFAULT;

CREATE TABLE alerts (
  id              bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  account_id      text NOT NULL REFERENCES accounts (id),
  device_id       text NOT NULL REFERENCES devices (id),
  type            text NOT NULL,
  severity        text NOT NULL CHECK (severity IN ('critical', 'warning', 'info')),
  status          text NOT NULL DEFAULT 'open' CHECK (status IN ('open', 'acknowledged')),
  message         text NOT NULL,
  created_at      timestamptz NOT NULL DEFAULT now(),
  acknowledged_at timestamptz
);
CREATE INDEX alerts_account_status_idx ON alerts (account_id, status, created_at DESC, id DESC);

CREATE TABLE commands (
  id           text PRIMARY KEY,
  account_id   text NOT NULL REFERENCES accounts (id),
  device_id    text NOT NULL REFERENCES devices (id),
  type         text NOT NULL,
  status       text NOT NULL DEFAULT 'queued' CHECK (status IN ('queued', 'sent', 'delivered', 'expired', 'failed')),
  created_at   timestamptz NOT NULL DEFAULT now(),
  expires_at   timestamptz NOT NULL,
  sent_at      timestamptz,
  delivered_at timestamptz,
  ended_at     timestamptz,
  reply        text,
  position     jsonb,
  error        text
);
CREATE INDEX commands_device_pending_idx ON commands (device_id, created_at) WHERE status IN ('queued', 'sent');
