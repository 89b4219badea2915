-- People who may see a run beyond the roles that show it (docs/service-catalog.md: the requester
-- of a catalog request sees the run it launched, though no role on the template shows it to him).
CREATE TABLE run_viewers (
  user_id integer NOT NULL REFERENCES users ON DELETE CASCADE,
  unified_job_id integer NOT NULL REFERENCES unified_jobs ON DELETE CASCADE,
  PRIMARY KEY (user_id, unified_job_id)
);
CREATE INDEX run_viewers_run ON run_viewers (unified_job_id);
