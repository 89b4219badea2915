-- Fields AWX's clients send and read: a job template's force_handlers (passed on to its jobs) and
-- its webhook service and credential, an organization's default execution environment and its
-- Galaxy credentials (ordered).

ALTER TABLE job_templates ADD COLUMN IF NOT EXISTS force_handlers boolean NOT NULL DEFAULT false;
ALTER TABLE job_templates ADD COLUMN IF NOT EXISTS webhook_service text NOT NULL DEFAULT '';
ALTER TABLE job_templates ADD COLUMN IF NOT EXISTS webhook_credential_id integer REFERENCES credentials(id) ON DELETE SET NULL;
ALTER TABLE unified_jobs ADD COLUMN IF NOT EXISTS force_handlers boolean NOT NULL DEFAULT false;

ALTER TABLE organizations ADD COLUMN IF NOT EXISTS default_environment_id integer REFERENCES execution_environments(id) ON DELETE SET NULL;

CREATE TABLE IF NOT EXISTS organization_galaxy_credentials (
  organization_id integer NOT NULL REFERENCES organizations(id) ON DELETE CASCADE,
  credential_id integer NOT NULL REFERENCES credentials(id) ON DELETE CASCADE,
  position integer NOT NULL,
  PRIMARY KEY (organization_id, credential_id)
);
CREATE INDEX IF NOT EXISTS organization_galaxy_credentials_credential ON organization_galaxy_credentials (credential_id);

-- The jobs view lists unified_jobs' columns as they were when made: make it again to show the new one.
DROP VIEW IF EXISTS jobs;
CREATE VIEW jobs AS SELECT * FROM unified_jobs WHERE kind = 'job';

-- An inventory's labels (AWX's Inventory.labels).
CREATE TABLE IF NOT EXISTS inventory_labels (
  inventory_id integer NOT NULL REFERENCES inventories(id) ON DELETE CASCADE,
  label_id integer NOT NULL REFERENCES labels(id) ON DELETE CASCADE,
  PRIMARY KEY (inventory_id, label_id)
);
CREATE INDEX IF NOT EXISTS inventory_labels_label ON inventory_labels (label_id);
