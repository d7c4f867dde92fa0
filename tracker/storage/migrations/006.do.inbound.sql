-- Inbound webhooks: outside systems (ERP, CRM, automation tools) create records in an account by
-- POSTing JSON to a secret URL. The secret is kept only as its SHA-256.
CREATE TABLE inbound_webhooks (
  id          text PRIMARY KEY,
  account_id  text NOT NULL REFERENCES accounts (id),
  name        text NOT NULL,
  action      text NOT NULL CHECK (action IN ('create_incident', 'create_expense', 'create_work_order', 'create_unit_note', 'log_only')),
  secret_hash bytea NOT NULL CHECK (length(secret_hash) = 32),
  created_at  timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX inbound_webhooks_account_idx ON inbound_webhooks (account_id, created_at);

-- Every call a webhook received, accepted or refused (never its secret), trimmed by age and count.
-- A log_only call is stored here with its body.
CREATE TABLE inbound_calls (
  id              text PRIMARY KEY,
  webhook_id      text NOT NULL REFERENCES inbound_webhooks (id) ON DELETE CASCADE,
  received_at     timestamptz NOT NULL DEFAULT clock_timestamp(),
  status          smallint NOT NULL,
  error           text,
  record_id       text,
  idempotency_key text,
  replayed        boolean NOT NULL DEFAULT false,
  client_address  text,
  body_bytes      integer,
  body            jsonb
);
CREATE INDEX inbound_calls_webhook_idx ON inbound_calls (webhook_id, received_at DESC, id DESC);
CREATE INDEX inbound_calls_received_idx ON inbound_calls (received_at);

-- The first response to an Idempotency-Key, per webhook, replayed for 24 hours. The primary key is
-- what makes concurrent retries with one key create exactly one record.
CREATE TABLE inbound_idempotency (
  webhook_id   text NOT NULL REFERENCES inbound_webhooks (id) ON DELETE CASCADE,
  key          text NOT NULL,
  body_hash    bytea NOT NULL,
  status       smallint NOT NULL,
  response     jsonb NOT NULL,
  record_id    text,
  created_at   timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (webhook_id, key)
);
CREATE INDEX inbound_idempotency_created_idx ON inbound_idempotency (created_at);

-- The records inbound webhooks create. `occurred_at` is the sender's time (default: when received);
-- `extra` keeps the fields of the call this product does not define. webhook_id names the source
-- and outlives the webhook's removal.
CREATE TABLE incidents (
  id          text PRIMARY KEY,
  account_id  text NOT NULL REFERENCES accounts (id),
  webhook_id  text NOT NULL,
  device_id   text REFERENCES devices (id),
  occurred_at timestamptz NOT NULL,
  received_at timestamptz NOT NULL DEFAULT now(),
  title       text,
  message     text,
  severity    text CHECK (severity IN ('critical', 'warning', 'info')),
  extra       jsonb NOT NULL DEFAULT '{}',
  CHECK (title IS NOT NULL OR message IS NOT NULL)
);
CREATE INDEX incidents_account_idx ON incidents (account_id, occurred_at DESC, id DESC);
CREATE INDEX incidents_device_idx ON incidents (device_id, occurred_at DESC, id DESC);

CREATE TABLE expenses (
  id          text PRIMARY KEY,
  account_id  text NOT NULL REFERENCES accounts (id),
  webhook_id  text NOT NULL,
  device_id   text REFERENCES devices (id),
  occurred_at timestamptz NOT NULL,
  received_at timestamptz NOT NULL DEFAULT now(),
  amount      double precision NOT NULL,
  currency    text CHECK (currency ~ '^[A-Z]{3}$'),
  category    text,
  liters      double precision CHECK (liters >= 0),
  extra       jsonb NOT NULL DEFAULT '{}'
);
CREATE INDEX expenses_account_idx ON expenses (account_id, occurred_at DESC, id DESC);
CREATE INDEX expenses_device_idx ON expenses (device_id, occurred_at DESC, id DESC);

CREATE TABLE work_orders (
  id          text PRIMARY KEY,
  account_id  text NOT NULL REFERENCES accounts (id),
  webhook_id  text NOT NULL,
  device_id   text REFERENCES devices (id),
  occurred_at timestamptz NOT NULL,
  received_at timestamptz NOT NULL DEFAULT now(),
  title       text NOT NULL,
  description text,
  due_at      timestamptz,
  extra       jsonb NOT NULL DEFAULT '{}'
);
CREATE INDEX work_orders_account_idx ON work_orders (account_id, occurred_at DESC, id DESC);
CREATE INDEX work_orders_device_idx ON work_orders (device_id, occurred_at DESC, id DESC);

CREATE TABLE unit_notes (
  id          text PRIMARY KEY,
  account_id  text NOT NULL REFERENCES accounts (id),
  webhook_id  text NOT NULL,
  device_id   text NOT NULL REFERENCES devices (id),
  occurred_at timestamptz NOT NULL,
  received_at timestamptz NOT NULL DEFAULT now(),
  text        text NOT NULL,
  extra       jsonb NOT NULL DEFAULT '{}'
);
CREATE INDEX unit_notes_account_idx ON unit_notes (account_id, occurred_at DESC, id DESC);
CREATE INDEX unit_notes_device_idx ON unit_notes (device_id, occurred_at DESC, id DESC);
