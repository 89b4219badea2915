-- Task manager: instance groups of inventories and organizations (ordered), the groups a launch
-- asked for, the group a run was placed in, and the updates a job waits for.

CREATE TABLE IF NOT EXISTS inventory_instance_groups (
  inventory_id integer NOT NULL REFERENCES inventories(id) ON DELETE CASCADE,
  instance_group_id integer NOT NULL REFERENCES instance_groups(id) ON DELETE CASCADE,
  position integer NOT NULL DEFAULT 0,
  PRIMARY KEY (inventory_id, instance_group_id)
);

CREATE TABLE IF NOT EXISTS organization_instance_groups (
  organization_id integer NOT NULL REFERENCES organizations(id) ON DELETE CASCADE,
  instance_group_id integer NOT NULL REFERENCES instance_groups(id) ON DELETE CASCADE,
  position integer NOT NULL DEFAULT 0,
  PRIMARY KEY (organization_id, instance_group_id)
);

-- Instance groups chosen at launch (ask_instance_groups_on_launch), tried before any other.
CREATE TABLE IF NOT EXISTS unified_job_instance_groups (
  unified_job_id integer NOT NULL REFERENCES unified_jobs(id) ON DELETE CASCADE,
  instance_group_id integer NOT NULL REFERENCES instance_groups(id) ON DELETE CASCADE,
  position integer NOT NULL DEFAULT 0,
  PRIMARY KEY (unified_job_id, instance_group_id)
);

-- Project and inventory updates a job was made to wait for.
CREATE TABLE IF NOT EXISTS unified_job_dependencies (
  unified_job_id integer NOT NULL REFERENCES unified_jobs(id) ON DELETE CASCADE,
  dependency_id integer NOT NULL REFERENCES unified_jobs(id) ON DELETE CASCADE,
  PRIMARY KEY (unified_job_id, dependency_id)
);
CREATE INDEX IF NOT EXISTS unified_job_dependencies_dependency ON unified_job_dependencies (dependency_id);

ALTER TABLE unified_jobs
  ADD COLUMN IF NOT EXISTS instance_group_id integer REFERENCES instance_groups(id) ON DELETE SET NULL,
  ADD COLUMN IF NOT EXISTS dependencies_processed boolean NOT NULL DEFAULT false;

CREATE INDEX IF NOT EXISTS unified_jobs_pending ON unified_jobs (id) WHERE status = 'pending';

-- The run views list unified_jobs' columns as they were when made: make them again to show the new ones.
DROP VIEW IF EXISTS project_updates;
CREATE VIEW project_updates AS SELECT * FROM unified_jobs WHERE kind = 'project_update';
DROP VIEW IF EXISTS inventory_updates;
CREATE VIEW inventory_updates AS
  SELECT u.*, (SELECT s.source_project_id FROM inventory_sources s WHERE s.id = u.inventory_source_id) AS source_project_id
  FROM unified_jobs u WHERE u.kind = 'inventory_update';
DROP VIEW IF EXISTS jobs;
CREATE VIEW jobs AS SELECT * FROM unified_jobs WHERE kind = 'job';

-- Job history outlives the project and inventory it ran with (AWX sets them to null); a project's
-- own updates are deleted with it by the service.
ALTER TABLE unified_jobs
  DROP CONSTRAINT IF EXISTS unified_jobs_project_id_fkey,
  ADD CONSTRAINT unified_jobs_project_id_fkey FOREIGN KEY (project_id) REFERENCES projects(id) ON DELETE SET NULL,
  DROP CONSTRAINT IF EXISTS unified_jobs_inventory_id_fkey,
  ADD CONSTRAINT unified_jobs_inventory_id_fkey FOREIGN KEY (inventory_id) REFERENCES inventories(id) ON DELETE SET NULL;
