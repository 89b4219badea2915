-- Workflow job templates join what other template kinds have: schedules (deleted with the template,
-- next_job_run following them), notification attachments (deleted with the template, and with system
-- job templates too), a webhook key. Every run view is made again so each lists every unified_jobs
-- column, and the unified job templates view lists every template kind.

ALTER TABLE workflow_job_templates ADD COLUMN IF NOT EXISTS webhook_key text NOT NULL DEFAULT '';

CREATE TRIGGER workflow_job_templates_drop_schedules AFTER DELETE ON workflow_job_templates FOR EACH ROW EXECUTE FUNCTION schedules_follow_template();
CREATE TRIGGER workflow_job_templates_notification_attachments AFTER DELETE ON workflow_job_templates FOR EACH ROW EXECUTE FUNCTION drop_notification_attachments();
CREATE TRIGGER system_job_templates_notification_attachments AFTER DELETE ON system_job_templates FOR EACH ROW EXECUTE FUNCTION drop_notification_attachments();
CREATE TRIGGER system_job_templates_forget_nodes AFTER DELETE ON system_job_templates FOR EACH ROW EXECUTE FUNCTION workflow_nodes_forget_template();

CREATE OR REPLACE FUNCTION schedules_follow_templates() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  WITH touched AS (SELECT unified_job_template_id AS id FROM changed_schedules)
  UPDATE job_templates t SET next_job_run = (SELECT min(s.next_run) FROM schedules s WHERE s.unified_job_template_id = t.id AND s.enabled)
  WHERE t.id IN (SELECT id FROM touched);
  WITH touched AS (SELECT unified_job_template_id AS id FROM changed_schedules)
  UPDATE system_job_templates t SET next_job_run = (SELECT min(s.next_run) FROM schedules s WHERE s.unified_job_template_id = t.id AND s.enabled)
  WHERE t.id IN (SELECT id FROM touched);
  WITH touched AS (SELECT unified_job_template_id AS id FROM changed_schedules)
  UPDATE workflow_job_templates t SET next_job_run = (SELECT min(s.next_run) FROM schedules s WHERE s.unified_job_template_id = t.id AND s.enabled)
  WHERE t.id IN (SELECT id FROM touched);
  RETURN NULL;
END $$;

DROP VIEW IF EXISTS project_updates;
CREATE VIEW project_updates AS SELECT * FROM unified_jobs WHERE kind = 'project_update';
DROP VIEW IF EXISTS inventory_updates;
CREATE VIEW inventory_updates AS
  SELECT u.*, (SELECT s.source_project_id FROM inventory_sources s WHERE s.id = u.inventory_source_id) AS source_project_id
  FROM unified_jobs u WHERE u.kind = 'inventory_update';
DROP VIEW IF EXISTS jobs;
CREATE VIEW jobs AS SELECT * FROM unified_jobs WHERE kind = 'job';
DROP VIEW IF EXISTS ad_hoc_commands;
CREATE VIEW ad_hoc_commands AS SELECT * FROM unified_jobs WHERE kind = 'ad_hoc_command';
ALTER VIEW ad_hoc_commands ALTER COLUMN kind SET DEFAULT 'ad_hoc_command';
DROP VIEW IF EXISTS system_jobs;
CREATE VIEW system_jobs AS SELECT * FROM unified_jobs WHERE kind = 'system_job';
DROP VIEW IF EXISTS workflow_jobs;
CREATE VIEW workflow_jobs AS SELECT * FROM unified_jobs WHERE kind = 'workflow_job';
DROP VIEW IF EXISTS workflow_approvals;
CREATE VIEW workflow_approvals AS SELECT * FROM unified_jobs WHERE kind = 'workflow_approval';

DROP VIEW unified_job_templates;
CREATE VIEW unified_job_templates AS
  SELECT id, 'project' AS kind, name, description, organization_id, status, last_job_id, current_job_id, last_job_run,
         last_job_failed, created, modified, created_by_id, modified_by_id
  FROM projects
  UNION ALL
  SELECT s.id, 'inventory_source', s.name, s.description, i.organization_id, s.status, s.last_job_id, s.current_job_id, s.last_job_run,
         s.last_job_failed, s.created, s.modified, s.created_by_id, s.modified_by_id
  FROM inventory_sources s JOIN inventories i ON i.id = s.inventory_id
  UNION ALL
  SELECT id, 'job_template', name, description, organization_id, status, last_job_id, current_job_id, last_job_run,
         last_job_failed, created, modified, created_by_id, modified_by_id
  FROM job_templates
  UNION ALL
  SELECT id, 'system_job_template', name, description, NULL::integer, status, last_job_id, current_job_id, last_job_run,
         last_job_failed, created, modified, created_by_id, modified_by_id
  FROM system_job_templates
  UNION ALL
  SELECT id, 'workflow_job_template', name, description, organization_id, status, last_job_id, current_job_id, last_job_run,
         last_job_failed, created, modified, created_by_id, modified_by_id
  FROM workflow_job_templates
  UNION ALL
  SELECT id, 'workflow_approval_template', name, description, NULL::integer, status, last_job_id, current_job_id, last_job_run,
         last_job_failed, created, modified, created_by_id, modified_by_id
  FROM workflow_approval_templates;
