-- The workflow loop (src/run-kinds/workflow-job/workflow-loop.ts) is woken on drover_workflows, in the
-- transaction that gives a run its final status, so the notice is delivered when that commits.

-- A run of a workflow node that ends asks its workflow job's next look, and names it in the notice.
CREATE OR REPLACE FUNCTION workflow_node_run_ended() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  workflow_job integer;
BEGIN
  -- No "AND NOT workflow_attention": a pass that holds the row and is about to clear the flag must be waited for.
  FOR workflow_job IN
    UPDATE unified_jobs SET workflow_attention = true
    WHERE id IN (SELECT workflow_job_id FROM workflow_job_nodes WHERE job_id = NEW.id) RETURNING id
  LOOP
    PERFORM pg_notify('drover_workflows', workflow_job::text);
  END LOOP;
  -- A workflow job that ended may let the next one of its template start (an empty notice: look at pending ones).
  IF NEW.kind = 'workflow_job' THEN
    PERFORM pg_notify('drover_workflows', '');
  END IF;
  RETURN NULL;
END $$;

-- A workflow job waiting to start, or an approval waiting for its answer or its time limit.
CREATE OR REPLACE FUNCTION workflow_run_pending() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  PERFORM pg_notify('drover_workflows', '');
  RETURN NULL;
END $$;
CREATE TRIGGER unified_jobs_workflow_pending AFTER INSERT OR UPDATE OF status ON unified_jobs FOR EACH ROW
  WHEN (NEW.kind IN ('workflow_job', 'workflow_approval') AND NEW.status = 'pending')
  EXECUTE FUNCTION workflow_run_pending();
