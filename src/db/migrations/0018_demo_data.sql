-- Whether the first-start demo content (AWX's create_preload_data) has been considered. Set once,
-- whether or not it was created, so deleting the demo objects does not bring them back.
ALTER TABLE installation ADD COLUMN IF NOT EXISTS demo_data_considered boolean NOT NULL DEFAULT false;
