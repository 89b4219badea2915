-- The audit log: security events, append-only. Updates and deletes are refused by the database itself.
CREATE TABLE audit_events (
  id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  timestamp timestamptz NOT NULL DEFAULT now(),
  event_type text NOT NULL,
  outcome text NOT NULL DEFAULT 'success' CHECK (outcome IN ('success', 'failure', 'denied')),
  actor_id integer,
  actor_username text NOT NULL DEFAULT '',
  target_type text NOT NULL DEFAULT '',
  target_id integer,
  target_name text NOT NULL DEFAULT '',
  remote_addr text NOT NULL DEFAULT '',
  user_agent text NOT NULL DEFAULT '',
  auth_method text NOT NULL DEFAULT '',
  node text NOT NULL DEFAULT '',
  detail jsonb NOT NULL DEFAULT '{}'
);
CREATE INDEX audit_events_timestamp_idx ON audit_events (timestamp);
CREATE INDEX audit_events_type_idx ON audit_events (event_type, timestamp);

CREATE FUNCTION audit_events_refuse_change() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  RAISE EXCEPTION 'audit events are immutable' USING ERRCODE = 'insufficient_privilege';
END;
$$;
CREATE TRIGGER audit_events_immutable BEFORE UPDATE OR DELETE ON audit_events
  FOR EACH ROW EXECUTE FUNCTION audit_events_refuse_change();
CREATE TRIGGER audit_events_no_truncate BEFORE TRUNCATE ON audit_events
  FOR EACH STATEMENT EXECUTE FUNCTION audit_events_refuse_change();
