-- Ad hoc commands: runs of one module against an inventory, kept in unified_jobs like every run
-- kind (module_name, module_args, credential_id and the job options already live there).

-- Per-host outcome counts of a finished command (AWX's host_status_counts), from the run's stats.
ALTER TABLE unified_jobs ADD COLUMN IF NOT EXISTS host_status_counts jsonb;
-- Passwords for a credential's ASK inputs, encrypted, read only by the run (jobs have them too).
ALTER TABLE unified_jobs ADD COLUMN IF NOT EXISTS credential_passwords text NOT NULL DEFAULT '';

-- The view the ad_hoc_command resource reads and writes: a simple view, so rows inserted through it
-- land in unified_jobs (with their kind filled in) and deleting through it deletes the run.
CREATE OR REPLACE VIEW ad_hoc_commands AS SELECT * FROM unified_jobs WHERE kind = 'ad_hoc_command';
ALTER VIEW ad_hoc_commands ALTER COLUMN kind SET DEFAULT 'ad_hoc_command';

CREATE INDEX IF NOT EXISTS unified_jobs_inventory ON unified_jobs (inventory_id) WHERE inventory_id IS NOT NULL;
