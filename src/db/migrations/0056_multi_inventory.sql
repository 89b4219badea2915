-- A job template's extra inventories, in order, after its primary `inventory` (docs/job-templates.md,
-- "Several inventories"): a run reads every one of them, each as its own inventory source.
CREATE TABLE IF NOT EXISTS job_template_inventories (
  job_template_id integer NOT NULL REFERENCES job_templates(id) ON DELETE CASCADE,
  inventory_id integer NOT NULL REFERENCES inventories(id) ON DELETE CASCADE,
  position integer NOT NULL,
  PRIMARY KEY (job_template_id, inventory_id)
);
CREATE INDEX IF NOT EXISTS job_template_inventories_inventory ON job_template_inventories (inventory_id);

-- The extra inventories a job ran against, in order (the template's, or those its launch chose).
CREATE TABLE IF NOT EXISTS job_inventories (
  job_id integer NOT NULL REFERENCES unified_jobs(id) ON DELETE CASCADE,
  inventory_id integer NOT NULL REFERENCES inventories(id) ON DELETE CASCADE,
  position integer NOT NULL,
  PRIMARY KEY (job_id, inventory_id)
);
CREATE INDEX IF NOT EXISTS job_inventories_inventory ON job_inventories (inventory_id);
