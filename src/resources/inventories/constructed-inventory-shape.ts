import { completeField, integer, text, type Field } from '../../api/fields.ts';
import type { Resource } from '../../api/resource.ts';
import { variablesField } from '../../inventory/variables.ts';
import { INVENTORY_VERBOSITY_CHOICES } from '../../runs/run-fields.ts';

/**
 * What /constructed_inventories/ reads and writes (AWX's ConstructedInventorySerializer): an
 * inventory of kind `constructed` (kind read-only, no host_filter) with four fields of its
 * auto-created source. null for any of those means "not given", as AWX takes it.
 */
export function constructedInventoryShape(inventories: Resource): Resource {
  const { host_filter: _hostFilter, kind, ...fields } = inventories.fields;
  const sourceFields = {
    source_vars: { ...variablesField({ helpText: 'The source_vars for the related auto-created inventory source, special to constructed inventory.' }), nullable: true, default: undefined },
    update_cache_timeout: integer({ min: 0, nullable: true, helpText: 'The cache timeout for the related auto-created inventory source, special to constructed inventory' }),
    limit: text({ nullable: true, helpText: 'The limit to restrict the returned hosts for the related auto-created inventory source, special to constructed inventory.' }),
    verbosity: integer({ nullable: true, choices: INVENTORY_VERBOSITY_CHOICES, helpText: 'The verbosity level for the related auto-created inventory source, special to constructed inventory' }),
  };
  const named = Object.fromEntries(Object.entries(sourceFields).map(([name, f]) => [name, completeField(name, f)]));
  const all = { ...fields, kind: { ...kind, readOnly: true }, ...named };
  const allFields: Record<string, Field> = { ...inventories.allFields, kind: all.kind, ...named };
  delete allFields.host_filter;
  return {
    ...inventories,
    label: 'Constructed Inventory List',
    description: 'Inventories built by the constructed plugin from input inventories.',
    fields: all,
    allFields,
    listPath: '/api/v2/constructed_inventories/',
    detailPath: (id: number) => `/api/v2/constructed_inventories/${id}/`,
  };
}
