-- A node's run that ends asks for its workflow job's next look with a row of its own instead of
-- setting workflow_attention on the workflow job: the transaction ending the run no longer waits
-- for a workflow pass that holds the workflow job's row while it starts the next nodes' runs.
-- No foreign key: its KEY SHARE lock would wait for that pass too. The pass deletes the rows of the
-- workflow job it looks at before it reads the graph; rows left by ended workflow jobs are swept.
CREATE TABLE workflow_wakeups (
  id bigserial PRIMARY KEY,
  workflow_job_id integer NOT NULL,
  created timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX workflow_wakeups_workflow_job ON workflow_wakeups (workflow_job_id);

CREATE OR REPLACE FUNCTION workflow_node_run_ended() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  workflow_job integer;
BEGIN
  FOR workflow_job IN
    INSERT INTO workflow_wakeups (workflow_job_id)
    SELECT workflow_job_id FROM workflow_job_nodes WHERE job_id = NEW.id RETURNING workflow_job_id
  LOOP
    PERFORM pg_notify('drover_workflows', workflow_job::text);
  END LOOP;
  -- A workflow job that ended may let the next one of its template start (an empty notice: look at pending ones).
  IF NEW.kind = 'workflow_job' THEN
    PERFORM pg_notify('drover_workflows', '');
  END IF;
  RETURN NULL;
END $$;
