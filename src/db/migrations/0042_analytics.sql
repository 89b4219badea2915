-- Indexes for /api/v2/svc_analytics/ (docs/analytics.md): every question reads the finished jobs of a
-- period, so a superuser's question is a range of this index, and with the columns the questions
-- aggregate included it is answered from the index alone.
CREATE INDEX unified_jobs_job_finished_analytics ON unified_jobs (finished) INCLUDE (status, elapsed, job_template_id)
  WHERE kind = 'job' AND finished IS NOT NULL;
-- An organization admin or a user sees jobs by their template: one range per template they read.
CREATE INDEX unified_jobs_job_template_finished ON unified_jobs (job_template_id, finished) INCLUDE (status, elapsed)
  WHERE kind = 'job' AND finished IS NOT NULL;
