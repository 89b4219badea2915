-- What a launch may add to a job beyond its template: credential passwords asked at launch (kept
-- encrypted, read only by the run) and labels. Launch-time instance groups live in
-- unified_job_instance_groups.

ALTER TABLE unified_jobs ADD COLUMN IF NOT EXISTS credential_passwords text NOT NULL DEFAULT '';

CREATE TABLE IF NOT EXISTS job_labels (
  job_id integer NOT NULL REFERENCES unified_jobs(id) ON DELETE CASCADE,
  label_id integer NOT NULL REFERENCES labels(id) ON DELETE CASCADE,
  PRIMARY KEY (job_id, label_id)
);
CREATE INDEX IF NOT EXISTS job_labels_label ON job_labels (label_id);
