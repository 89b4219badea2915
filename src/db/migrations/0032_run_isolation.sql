-- Whether a node runs its runs inside the sandbox (docs/security.md, "Runs are isolated").
ALTER TABLE instances ADD COLUMN isolates_runs boolean NOT NULL DEFAULT false;
