-- Several looks may move one workflow job on at once, sharing its row (FOR SHARE): what asks for a
-- look is a wake-up row only, never a mark on that row. Marks left by earlier versions become
-- wake-ups. The column stays, unused, because the run views list unified_jobs' columns.
INSERT INTO workflow_wakeups (workflow_job_id) SELECT id FROM unified_jobs WHERE workflow_attention AND status = 'running';
UPDATE unified_jobs SET workflow_attention = false WHERE workflow_attention;
DROP INDEX IF EXISTS unified_jobs_workflow_attention;
