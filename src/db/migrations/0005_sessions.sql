-- Browser sessions. The cookie holds a random key; only its SHA-256 is stored, so a copy of the
-- database does not yield usable cookies. A session ends when it has been idle for
-- SESSION_COOKIE_AGE seconds (`expires` is pushed forward by every request).
CREATE TABLE sessions (
  id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  key_hash text NOT NULL UNIQUE,
  user_id integer NOT NULL REFERENCES users(id) ON DELETE CASCADE,
  created timestamptz NOT NULL DEFAULT now(),
  last_activity timestamptz NOT NULL DEFAULT now(),
  expires timestamptz NOT NULL,
  remote_addr text NOT NULL DEFAULT '',
  user_agent text NOT NULL DEFAULT ''
);
CREATE INDEX sessions_user_idx ON sessions (user_id, created);
CREATE INDEX sessions_expires_idx ON sessions (expires);

-- Failed logins, kept in the database so that every node applies the same throttle.
-- kind 'username' is keyed by the lower-cased username tried, 'address' by the client address.
CREATE TABLE login_failures (
  id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  kind text NOT NULL CHECK (kind IN ('username', 'address')),
  key text NOT NULL,
  attempted timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX login_failures_key_idx ON login_failures (kind, key, attempted);
CREATE INDEX login_failures_attempted_idx ON login_failures (attempted);
