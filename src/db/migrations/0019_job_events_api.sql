-- Reading the events of runs with hundreds of thousands of them: deep pages, filters by event and
-- host, a parent's children and stdout from a line pick their rows through an index. The page
-- indexes carry the event's id so that skipping the rows before a deep page reads no table rows.

DROP INDEX IF EXISTS unified_job_events_counter;
CREATE UNIQUE INDEX IF NOT EXISTS unified_job_events_job_counter ON unified_job_events (unified_job_id, counter) INCLUDE (id);
CREATE INDEX IF NOT EXISTS unified_job_events_job_event ON unified_job_events (unified_job_id, event, counter) INCLUDE (id);
CREATE INDEX IF NOT EXISTS unified_job_events_job_host ON unified_job_events (unified_job_id, host_id, counter) INCLUDE (id);
CREATE INDEX IF NOT EXISTS unified_job_events_job_parent ON unified_job_events (unified_job_id, parent_uuid);
CREATE INDEX IF NOT EXISTS unified_job_events_job_end_line ON unified_job_events (unified_job_id, end_line);

-- A finished job's children_summary (AWX's JobJobEventsChildrenSummary), made once from all its
-- events the first time it is asked for: the events of a finished job no longer change.
CREATE TABLE IF NOT EXISTS job_children_summaries (
  job_id integer PRIMARY KEY REFERENCES unified_jobs(id) ON DELETE CASCADE,
  summary jsonb NOT NULL
);

-- The events of one run kind, read one at a time (/job_events/{id}/, /ad_hoc_command_events/{id}/).
CREATE VIEW job_events AS
  SELECT e.* FROM unified_job_events e JOIN unified_jobs u ON u.id = e.unified_job_id WHERE u.kind = 'job';
CREATE VIEW ad_hoc_command_events AS
  SELECT e.* FROM unified_job_events e JOIN unified_jobs u ON u.id = e.unified_job_id WHERE u.kind = 'ad_hoc_command';
