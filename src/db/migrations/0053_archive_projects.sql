-- Projects of scm_type 'archive': a tar or zip file fetched from a URL (docs/projects.md#archive-projects).
ALTER TABLE projects DROP CONSTRAINT IF EXISTS projects_scm_type_check;
ALTER TABLE projects ADD CONSTRAINT projects_scm_type_check CHECK (scm_type IN ('', 'git', 'archive'));
