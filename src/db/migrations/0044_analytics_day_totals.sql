-- Day totals for /api/v2/svc_analytics/ (docs/analytics.md): what the finished jobs of each UTC day
-- add up to, per job template, kept as jobs finish, so that a year of trends or a month of host
-- questions reads one row per day and template (and host) instead of every job and summary.
-- job_template_id 0 and host_id 0 stand for none (a deleted template, a host not in the inventory).
--
-- A job's totals stay under the template and host ids it finished with: deleting a template or a
-- host (ON DELETE SET NULL on jobs and summaries) moves nothing, and a job deleted later is taken
-- away under 0. That leaves +1 under an id that no longer exists and -1 under 0, which every
-- question treats alike (neither is a template or host anyone may read, ranks or reaches), and whose
-- sums per day and per host name stay right.
CREATE TABLE job_day_totals (
  day date NOT NULL,
  job_template_id integer NOT NULL,
  status text NOT NULL,
  jobs integer NOT NULL,
  -- The jobs with an elapsed time, and its sum: an average over days is sum(elapsed) / sum(timed_jobs).
  timed_jobs integer NOT NULL,
  elapsed float8 NOT NULL,
  PRIMARY KEY (day, job_template_id, status)
);

CREATE TABLE host_day_totals (
  day date NOT NULL,
  job_template_id integer NOT NULL,
  host_id integer NOT NULL,
  host_name text NOT NULL,
  jobs integer NOT NULL,
  ok integer NOT NULL,
  changed integer NOT NULL,
  failures integer NOT NULL,
  skipped integer NOT NULL,
  -- Jobs in which the host failed: a failed summary, failed tasks or unreachable.
  failed_jobs integer NOT NULL,
  PRIMARY KEY (day, job_template_id, host_id, host_name) INCLUDE (jobs, ok, changed, failures, skipped, failed_jobs)
);

-- A caller who sees some templates only reads theirs: by template, then by day.
CREATE INDEX job_day_totals_template ON job_day_totals (job_template_id, day) INCLUDE (status, jobs, timed_jobs, elapsed);
CREATE INDEX host_day_totals_template ON host_day_totals (job_template_id, day) INCLUDE (host_id, host_name, jobs, ok, changed, failures, skipped, failed_jobs);
-- Which hosts a period reached (host coverage, for those who see every template): narrower than the key.
CREATE INDEX host_day_totals_reached ON host_day_totals (day, host_id) INCLUDE (jobs);

-- Which runs analytics counts: finished jobs (not workflow jobs, not other run kinds).
CREATE FUNCTION analytics_counts(kind text, status text, finished timestamptz) RETURNS boolean LANGUAGE sql IMMUTABLE AS $$
  SELECT kind = 'job' AND finished IS NOT NULL AND status IN ('successful', 'failed', 'error', 'canceled')
$$;

CREATE FUNCTION analytics_day(finished timestamptz) RETURNS date LANGUAGE sql IMMUTABLE AS $$
  SELECT (finished AT TIME ZONE 'UTC')::date
$$;

-- Adds (sign 1) or takes away (sign -1) one job from its day's totals.
CREATE FUNCTION analytics_add_job(run unified_jobs, sign integer) RETURNS void LANGUAGE sql AS $$
  INSERT INTO job_day_totals AS t (day, job_template_id, status, jobs, timed_jobs, elapsed)
  VALUES (analytics_day(run.finished), coalesce(run.job_template_id, 0), run.status, sign,
    CASE WHEN run.elapsed IS NULL THEN 0 ELSE sign END, sign * coalesce(run.elapsed, 0))
  ON CONFLICT (day, job_template_id, status) DO UPDATE
    SET jobs = t.jobs + EXCLUDED.jobs, timed_jobs = t.timed_jobs + EXCLUDED.timed_jobs, elapsed = t.elapsed + EXCLUDED.elapsed
$$;

-- Adds or takes away a job's host summaries (all of them, or one when summary_id is given) from
-- the host totals of the job's day and template. Rows go in host order, so two jobs finishing
-- together lock shared rows in the same order.
CREATE FUNCTION analytics_add_hosts(run_id integer, day date, template_id integer, sign integer, summary_id integer DEFAULT NULL) RETURNS void LANGUAGE sql AS $$
  INSERT INTO host_day_totals AS t (day, job_template_id, host_id, host_name, jobs, ok, changed, failures, skipped, failed_jobs)
  SELECT day, template_id, coalesce(s.host_id, 0), s.host_name, sign, sign * s.ok, sign * s.changed, sign * s.failures, sign * s.skipped,
    CASE WHEN s.failed OR s.failures > 0 OR s.dark > 0 THEN sign ELSE 0 END
  FROM job_host_summaries s WHERE s.job_id = run_id AND (summary_id IS NULL OR s.id = summary_id)
  ORDER BY 3, 4
  ON CONFLICT (day, job_template_id, host_id, host_name) DO UPDATE
    SET jobs = t.jobs + EXCLUDED.jobs, ok = t.ok + EXCLUDED.ok, changed = t.changed + EXCLUDED.changed,
      failures = t.failures + EXCLUDED.failures, skipped = t.skipped + EXCLUDED.skipped, failed_jobs = t.failed_jobs + EXCLUDED.failed_jobs
$$;

-- A job that finishes, changes its counted values or is deleted moves its totals.
CREATE FUNCTION analytics_job_changed() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  was boolean := TG_OP <> 'INSERT' AND analytics_counts(OLD.kind, OLD.status, OLD.finished);
  now_counted boolean := TG_OP <> 'DELETE' AND analytics_counts(NEW.kind, NEW.status, NEW.finished);
  same_key boolean;
BEGIN
  same_key := was AND now_counted AND analytics_day(OLD.finished) = analytics_day(NEW.finished)
    AND coalesce(OLD.job_template_id, 0) = coalesce(NEW.job_template_id, 0);
  IF was AND NOT (same_key AND OLD.status = NEW.status AND OLD.elapsed IS NOT DISTINCT FROM NEW.elapsed) THEN
    PERFORM analytics_add_job(OLD, -1);
    IF now_counted THEN PERFORM analytics_add_job(NEW, 1); END IF;
  ELSIF now_counted AND NOT was THEN
    PERFORM analytics_add_job(NEW, 1);
  END IF;
  IF NOT same_key THEN
    IF was THEN PERFORM analytics_add_hosts(OLD.id, analytics_day(OLD.finished), coalesce(OLD.job_template_id, 0), -1); END IF;
    IF now_counted THEN PERFORM analytics_add_hosts(NEW.id, analytics_day(NEW.finished), coalesce(NEW.job_template_id, 0), 1); END IF;
  END IF;
  IF TG_OP = 'DELETE' THEN RETURN OLD; END IF;
  RETURN NULL;
END $$;

-- Other kinds of run never count: their status changes do not call the function at all.
CREATE TRIGGER unified_jobs_analytics AFTER INSERT OR UPDATE OF status, finished, elapsed ON unified_jobs
  FOR EACH ROW WHEN (NEW.kind = 'job') EXECUTE FUNCTION analytics_job_changed();
-- Before the delete, while its summaries still exist (they go with it, ON DELETE CASCADE).
CREATE TRIGGER unified_jobs_analytics_delete BEFORE DELETE ON unified_jobs
  FOR EACH ROW WHEN (OLD.kind = 'job') EXECUTE FUNCTION analytics_job_changed();

-- A summary stored, changed or removed after its job finished moves the host totals.
CREATE FUNCTION analytics_summary_changed() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  run record;
BEGIN
  SELECT id, kind, status, finished, job_template_id INTO run FROM unified_jobs
    WHERE id = CASE WHEN TG_OP = 'DELETE' THEN OLD.job_id ELSE NEW.job_id END;
  -- A job being deleted is gone here, and its totals were taken away before.
  IF NOT FOUND OR NOT analytics_counts(run.kind, run.status, run.finished) THEN RETURN NULL; END IF;
  IF TG_OP <> 'INSERT' THEN
    INSERT INTO host_day_totals AS t (day, job_template_id, host_id, host_name, jobs, ok, changed, failures, skipped, failed_jobs)
    VALUES (analytics_day(run.finished), coalesce(run.job_template_id, 0), coalesce(OLD.host_id, 0), OLD.host_name, -1, -OLD.ok, -OLD.changed,
      -OLD.failures, -OLD.skipped, CASE WHEN OLD.failed OR OLD.failures > 0 OR OLD.dark > 0 THEN -1 ELSE 0 END)
    ON CONFLICT (day, job_template_id, host_id, host_name) DO UPDATE
      SET jobs = t.jobs + EXCLUDED.jobs, ok = t.ok + EXCLUDED.ok, changed = t.changed + EXCLUDED.changed,
        failures = t.failures + EXCLUDED.failures, skipped = t.skipped + EXCLUDED.skipped, failed_jobs = t.failed_jobs + EXCLUDED.failed_jobs;
  END IF;
  IF TG_OP <> 'DELETE' THEN
    PERFORM analytics_add_hosts(run.id, analytics_day(run.finished), coalesce(run.job_template_id, 0), 1, NEW.id);
  END IF;
  RETURN NULL;
END $$;

CREATE TRIGGER job_host_summaries_analytics AFTER INSERT OR DELETE OR UPDATE OF host_name, ok, changed, failures, skipped, dark, failed
  ON job_host_summaries FOR EACH ROW EXECUTE FUNCTION analytics_summary_changed();

-- Builds the totals from scratch from the jobs and summaries stored (here, for the history already
-- kept; bench/analytics.ts after seeding in bulk with the triggers off).
CREATE FUNCTION analytics_rebuild_totals() RETURNS void LANGUAGE sql AS $$
  DELETE FROM job_day_totals;
  DELETE FROM host_day_totals;
  INSERT INTO job_day_totals (day, job_template_id, status, jobs, timed_jobs, elapsed)
  SELECT analytics_day(finished), coalesce(job_template_id, 0), status, count(*), count(elapsed), coalesce(sum(elapsed), 0)
  FROM unified_jobs WHERE analytics_counts(kind, status, finished) GROUP BY 1, 2, 3;
  INSERT INTO host_day_totals (day, job_template_id, host_id, host_name, jobs, ok, changed, failures, skipped, failed_jobs)
  SELECT analytics_day(j.finished), coalesce(j.job_template_id, 0), coalesce(s.host_id, 0), s.host_name, count(*), sum(s.ok), sum(s.changed),
    sum(s.failures), sum(s.skipped), count(*) FILTER (WHERE s.failed OR s.failures > 0 OR s.dark > 0)
  FROM unified_jobs j JOIN job_host_summaries s ON s.job_id = j.id
  WHERE analytics_counts(j.kind, j.status, j.finished) GROUP BY 1, 2, 3, 4;
$$;

SELECT analytics_rebuild_totals();

-- The indexes of 0042 served the questions when they read jobs and summaries directly.
DROP INDEX unified_jobs_job_finished_analytics;
DROP INDEX job_host_summaries_job_analytics;
