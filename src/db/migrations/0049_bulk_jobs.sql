-- A workflow job made by POST /api/v2/bulk/job_launch/ (docs/bulk.md): it has no template; its nodes
-- are the jobs asked for. AWX's WorkflowJob.is_bulk_job.
ALTER TABLE unified_jobs ADD COLUMN is_bulk_job boolean NOT NULL DEFAULT false;
CREATE OR REPLACE VIEW workflow_jobs AS SELECT * FROM unified_jobs WHERE kind = 'workflow_job';
