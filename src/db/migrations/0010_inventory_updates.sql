-- Inventory updates: the import options of the source each update ran with, and the view the
-- inventory_update resource reads (a simple view, so deleting through it deletes the run).

ALTER TABLE unified_jobs
  ADD COLUMN enabled_var text NOT NULL DEFAULT '',
  ADD COLUMN enabled_value text NOT NULL DEFAULT '',
  ADD COLUMN host_filter text NOT NULL DEFAULT '';

CREATE VIEW inventory_updates AS
  SELECT u.*, (SELECT s.source_project_id FROM inventory_sources s WHERE s.id = u.inventory_source_id) AS source_project_id
  FROM unified_jobs u WHERE u.kind = 'inventory_update';
