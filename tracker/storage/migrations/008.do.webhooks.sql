-- Outbound webhooks: the endpoints an account configures, the outbox of deliveries (one row per
-- event and endpoint, written in the transaction that stored the event) and the log of attempts.

CREATE TABLE webhook_endpoints (
  id              text PRIMARY KEY,
  account_id      text NOT NULL REFERENCES accounts (id),
  url             text NOT NULL,
  -- Event types wanted; '*' stands for every type, including those added later.
  events          text[] NOT NULL,
  format          text NOT NULL CHECK (format IN ('auto', 'standard', 'slack', 'discord', 'teams', 'googlechat')),
  -- The signing secret (whsec_…). HMAC needs the key itself, so it is kept, never shown again.
  secret          text NOT NULL,
  status          text NOT NULL DEFAULT 'enabled' CHECK (status IN ('enabled', 'disabled')),
  disabled_at     timestamptz,
  disabled_reason text,
  -- Start of the current run of failed attempts; cleared by any success.
  failing_since   timestamptz,
  last_success_at timestamptz,
  -- The receiver asked for a pause (Retry-After): nothing is sent to it before then.
  paused_until    timestamptz,
  created_at      timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX webhook_endpoints_account_idx ON webhook_endpoints (account_id);

CREATE TABLE webhook_deliveries (
  id              bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  endpoint_id     text NOT NULL REFERENCES webhook_endpoints (id) ON DELETE CASCADE,
  account_id      text NOT NULL,
  event_id        bigint NOT NULL,
  event_type      text NOT NULL,
  -- The standard payload, fixed when the event was stored (json keeps its key order).
  payload         json NOT NULL,
  status          text NOT NULL DEFAULT 'pending' CHECK (status IN ('pending', 'delivered', 'failed')),
  attempts        integer NOT NULL DEFAULT 0,
  next_attempt_at timestamptz NOT NULL DEFAULT now(),
  -- A worker holds the row until then; a worker that died is replaced once it passes.
  locked_until    timestamptz,
  last_status     integer,
  last_error      text,
  created_at      timestamptz NOT NULL DEFAULT now(),
  finished_at     timestamptz,
  UNIQUE (endpoint_id, event_id)
);
CREATE INDEX webhook_deliveries_due_idx ON webhook_deliveries (endpoint_id, next_attempt_at, id) WHERE status = 'pending';
CREATE INDEX webhook_deliveries_finished_idx ON webhook_deliveries (finished_at) WHERE status <> 'pending';

CREATE TABLE webhook_attempts (
  id              bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  endpoint_id     text NOT NULL REFERENCES webhook_endpoints (id) ON DELETE CASCADE,
  -- Null for a test message sent by the operator.
  delivery_id     bigint REFERENCES webhook_deliveries (id) ON DELETE CASCADE,
  message_id      text NOT NULL,
  event_type      text NOT NULL,
  attempted_at    timestamptz NOT NULL DEFAULT now(),
  duration_ms     integer NOT NULL,
  status_code     integer,
  error           text,
  -- When the next try is due; null when this attempt ended the delivery.
  next_attempt_at timestamptz
);
CREATE INDEX webhook_attempts_endpoint_idx ON webhook_attempts (endpoint_id, attempted_at DESC, id DESC);
CREATE INDEX webhook_attempts_delivery_idx ON webhook_attempts (delivery_id);

-- Alerts about the account itself (an endpoint disabled) concern no device.
ALTER TABLE alerts ALTER COLUMN device_id DROP NOT NULL;
