-- What a project update found, so that every node answers alike whatever its disk holds
-- (docs/projects.md#several-nodes): the playbooks and inventory files of the revision checked out
-- (AWX's Project.playbook_files and inventory_files). NULL until a sync records them: the node
-- then reads its own disk, as for projects synced before this migration and manual projects.
ALTER TABLE projects ADD COLUMN playbook_files jsonb;
ALTER TABLE projects ADD COLUMN inventory_files jsonb;

-- The demo repository as the Demo Project names it: every node makes the same repository in its own
-- data directory and fetches the demo's revisions from that copy. Empty when no demo content was made.
ALTER TABLE installation ADD COLUMN demo_repository text NOT NULL DEFAULT '';

-- The manual projects' directories each node holds under its projects root, recorded by the node at
-- each heartbeat (and when a manual project is saved through it): the task manager places a job of a
-- manual project only on a node holding its directory.
ALTER TABLE instances ADD COLUMN manual_project_dirs jsonb NOT NULL DEFAULT '[]'::jsonb;
