CREATE TABLE accounts (
  id          text PRIMARY KEY,
  name        text NOT NULL,
  created_at  timestamptz NOT NULL DEFAULT now()
);

CREATE TABLE devices (
  id           text PRIMARY KEY,
  account_id   text NOT NULL REFERENCES accounts (id),
  name         text NOT NULL,
  plate        text NOT NULL DEFAULT '',
  imei         text NOT NULL UNIQUE CHECK (imei ~ '^[0-9]{5,20}$'),
  protocol     text,
  status       text NOT NULL DEFAULT 'offline' CHECK (status IN ('online', 'offline')),
  status_since timestamptz,
  last_lat     double precision,
  last_lng     double precision,
  last_speed   double precision NOT NULL DEFAULT 0,
  last_heading double precision,
  last_update  timestamptz,
  created_at   timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX devices_account_idx ON devices (account_id, id);

CREATE TABLE api_tokens (
  id            text PRIMARY KEY,
  account_id    text NOT NULL REFERENCES accounts (id),
  name          text NOT NULL,
  scopes        text[] NOT NULL,
  created_at    timestamptz NOT NULL DEFAULT now(),
  last_used_at  timestamptz,
  revoked_at    timestamptz
);
CREATE INDEX api_tokens_account_idx ON api_tokens (account_id);
