-- Indexes for /api/v2/svc_analytics/ (docs/analytics.md). Every question reads the finished jobs of a
-- period: a range of this index, answered from the index alone, with the columns the questions
-- aggregate and the access conditions read (id, job_template_id) included.
CREATE INDEX unified_jobs_job_finished_analytics ON unified_jobs (finished) INCLUDE (id, status, elapsed, job_template_id)
  WHERE kind = 'job' AND finished IS NOT NULL;
-- The host questions read the summaries of those jobs: one index probe a job, from the index alone.
CREATE INDEX job_host_summaries_job_analytics ON job_host_summaries (job_id) INCLUDE (host_id, host_name, ok, changed, failures, skipped, dark, failed);
