-- Dashboard users (account owners), their sessions, and failed sign-in counts. Secrets are stored
-- as SHA-256 digests (session ids, password links) or scrypt hashes (passwords), never as given.
CREATE TABLE dashboard_users (
  id                       text PRIMARY KEY,
  account_id               text NOT NULL REFERENCES accounts (id),
  email                    text NOT NULL UNIQUE CHECK (email = lower(email)),
  password_hash            text,
  password_set_at          timestamptz,
  password_link_hash       text UNIQUE,
  password_link_expires_at timestamptz,
  created_at               timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX dashboard_users_account_idx ON dashboard_users (account_id);

CREATE TABLE dashboard_sessions (
  id_hash     text PRIMARY KEY,
  user_id     text NOT NULL REFERENCES dashboard_users (id) ON DELETE CASCADE,
  csrf_token  text NOT NULL,
  created_at  timestamptz NOT NULL DEFAULT now(),
  seen_at     timestamptz NOT NULL DEFAULT now(),
  expires_at  timestamptz NOT NULL
);
CREATE INDEX dashboard_sessions_user_idx ON dashboard_sessions (user_id);
CREATE INDEX dashboard_sessions_expires_idx ON dashboard_sessions (expires_at);

-- One fixed window of failed sign-ins per email address (digest) and per client address.
CREATE TABLE dashboard_login_failures (
  kind         text NOT NULL CHECK (kind IN ('email', 'address')),
  key          text NOT NULL,
  failures     integer NOT NULL,
  window_start timestamptz NOT NULL,
  PRIMARY KEY (kind, key)
);
CREATE INDEX dashboard_login_failures_window_idx ON dashboard_login_failures (window_start);
