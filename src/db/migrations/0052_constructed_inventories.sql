-- A constructed inventory's input inventories, in order (AWX's InventoryConstructedInventoryMembership):
-- their hosts are read by the constructed plugin in this order at each update.
CREATE TABLE IF NOT EXISTS inventory_input_inventories (
  constructed_inventory_id integer NOT NULL REFERENCES inventories(id) ON DELETE CASCADE,
  input_inventory_id integer NOT NULL REFERENCES inventories(id) ON DELETE CASCADE,
  position integer NOT NULL,
  PRIMARY KEY (constructed_inventory_id, input_inventory_id)
);
CREATE INDEX IF NOT EXISTS inventory_input_inventories_input ON inventory_input_inventories (input_inventory_id);
