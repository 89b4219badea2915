-- A policy reaches the engine after its change commits (docs/policy.md, "The engine's copy"): saving or
-- deleting a policy queues the operation here in the same transaction, and the policy engine sync loop
-- uploads or removes it and records the outcome on the policy. One row per policy: a later change
-- replaces the operation and bumps its generation, so an attempt that finishes after a newer change
-- never marks the policy synced with older text. A removal outlives its policy, hence no foreign key.

CREATE TABLE IF NOT EXISTS policy_engine_outbox (
  policy_id integer PRIMARY KEY,
  operation text NOT NULL CHECK (operation IN ('upload', 'remove')),
  generation integer NOT NULL DEFAULT 1,
  attempts integer NOT NULL DEFAULT 0,
  -- When the operation is next tried: now when queued, later after a failed attempt.
  next_attempt_at timestamptz NOT NULL DEFAULT now(),
  -- Set while a node tries it; a claim that outlives this (the node stopped) is taken again.
  claimed_until timestamptz,
  last_error text NOT NULL DEFAULT '',
  queued timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX IF NOT EXISTS policy_engine_outbox_due ON policy_engine_outbox (next_attempt_at);

-- The sync state replaces last_sync_status and last_sync_error (written by the request itself before).
ALTER TABLE policies ADD COLUMN IF NOT EXISTS sync_state text NOT NULL DEFAULT 'pending' CHECK (sync_state IN ('pending', 'synced', 'failed'));
ALTER TABLE policies ADD COLUMN IF NOT EXISTS sync_error text NOT NULL DEFAULT '';
ALTER TABLE policies ADD COLUMN IF NOT EXISTS synced_at timestamptz;
ALTER TABLE policies DROP COLUMN IF EXISTS last_sync_status;
ALTER TABLE policies DROP COLUMN IF EXISTS last_sync_error;

-- What an upload made inside a transaction that rolled back may have left behind is put right: every
-- policy is uploaded once more.
INSERT INTO policy_engine_outbox (policy_id, operation) SELECT id, 'upload' FROM policies ON CONFLICT DO NOTHING;

-- A policy also leaves with its organization (ON DELETE CASCADE), which no request hook sees: the
-- removal from the engine is queued by the database for every deleted policy.
CREATE OR REPLACE FUNCTION queue_policy_removal() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO policy_engine_outbox (policy_id, operation) VALUES (OLD.id, 'remove')
  ON CONFLICT (policy_id) DO UPDATE SET operation = 'remove', generation = policy_engine_outbox.generation + 1,
    attempts = 0, next_attempt_at = now(), last_error = '', queued = now();
  PERFORM pg_notify('drover_policy_engine', '');
  RETURN OLD;
END $$;
DROP TRIGGER IF EXISTS policies_queue_removal ON policies;
CREATE TRIGGER policies_queue_removal AFTER DELETE ON policies FOR EACH ROW EXECUTE FUNCTION queue_policy_removal();
