-- Which schedule launched a run, on the run itself as AWX's UnifiedJob.schedule (on_delete SET_NULL):
-- jobs show it in related and summary_fields and filter on it (?schedule=<id>). It replaces the
-- schedule_runs table, which kept the same link beside the run.
ALTER TABLE unified_jobs ADD COLUMN schedule_id integer REFERENCES schedules(id) ON DELETE SET NULL;
UPDATE unified_jobs u SET schedule_id = r.schedule_id FROM schedule_runs r WHERE r.unified_job_id = u.id;
CREATE INDEX unified_jobs_schedule ON unified_jobs (schedule_id) WHERE schedule_id IS NOT NULL;
DROP TABLE schedule_runs;

-- The views of each kind read the new column (and those added since they were made).
DROP VIEW project_updates;
CREATE VIEW project_updates AS SELECT * FROM unified_jobs WHERE kind = 'project_update';
DROP VIEW inventory_updates;
CREATE VIEW inventory_updates AS
  SELECT u.*, (SELECT s.source_project_id FROM inventory_sources s WHERE s.id = u.inventory_source_id) AS source_project_id
  FROM unified_jobs u WHERE u.kind = 'inventory_update';
DROP VIEW jobs;
CREATE VIEW jobs AS SELECT * FROM unified_jobs WHERE kind = 'job';
DROP VIEW ad_hoc_commands;
CREATE VIEW ad_hoc_commands AS SELECT * FROM unified_jobs WHERE kind = 'ad_hoc_command';
ALTER VIEW ad_hoc_commands ALTER COLUMN kind SET DEFAULT 'ad_hoc_command';
DROP VIEW system_jobs;
CREATE VIEW system_jobs AS SELECT * FROM unified_jobs WHERE kind = 'system_job';
DROP VIEW workflow_jobs;
CREATE VIEW workflow_jobs AS SELECT * FROM unified_jobs WHERE kind = 'workflow_job';
DROP VIEW workflow_approvals;
CREATE VIEW workflow_approvals AS SELECT * FROM unified_jobs WHERE kind = 'workflow_approval';
