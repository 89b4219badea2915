import type { Field } from './fields.ts';
import type { Resource } from './resource.ts';

type Meta = Record<string, unknown>;

const BUILTIN: Record<string, Meta> = {
  id: { type: 'integer', label: 'ID', help_text: 'Database ID for this object.', filterable: true },
  type: { type: 'choice', label: 'Type', help_text: 'Data type for this object.', filterable: false },
  url: { type: 'string', label: 'Url', help_text: 'URL for this object.', filterable: false },
  related: { type: 'object', label: 'Related', help_text: 'Data structure with URLs of related resources.', filterable: false },
  summary_fields: { type: 'object', label: 'Summary fields', help_text: 'Data structure with name/description for related resources.', filterable: false },
  created: { type: 'datetime', label: 'Created', help_text: 'Timestamp when this object was created.', filterable: true },
  modified: { type: 'datetime', label: 'Modified', help_text: 'Timestamp when this object was last modified.', filterable: true },
};

function fieldMeta(field: Field, forWrite: boolean): Meta {
  const meta: Meta = { type: field.optionsType, label: field.label, help_text: field.helpText, filterable: field.filterable && !field.secret };
  if (forWrite) meta.required = field.required;
  if (field.choices) meta.choices = field.choices.map(([v, l]) => [v, l]);
  if (field.default !== undefined) meta.default = field.default;
  if (field.nullable) meta.allow_null = true;
  return meta;
}

/** Field metadata for reads: every field, read-only ones included. */
export function readMeta(resource: Resource): Meta {
  const meta: Meta = { ...BUILTIN, type: { ...BUILTIN.type, choices: [[resource.name, resource.label.replace(/ List$/, '')]] } };
  for (const [name, field] of Object.entries(resource.fields)) meta[name] = fieldMeta(field, false);
  return meta;
}

/** Field metadata for writes: only what a client may send. */
export function writeMeta(resource: Resource): Meta {
  const meta: Meta = {};
  for (const [name, field] of Object.entries(resource.fields)) if (!field.readOnly) meta[name] = fieldMeta(field, true);
  return meta;
}

export function listOptions(resource: Resource, canCreate: boolean, name = resource.label): Meta {
  const actions: Meta = { GET: readMeta(resource) };
  if (canCreate) actions.POST = writeMeta(resource);
  const related = [
    ...Object.entries(resource.allFields).filter(([, f]) => f.ref).map(([n]) => n),
    ...Object.keys(resource.related),
  ];
  const meta: Meta = {
    name,
    description: resource.description,
    renders: ['application/json', 'text/html'],
    parses: ['application/json'],
    actions,
    search_fields: resource.search,
    related_search_fields: related.map((r) => `${r}__search`),
  };
  if (Object.keys(resource.roles).length) meta.object_roles = Object.keys(resource.roles);
  return meta;
}

export function detailOptions(resource: Resource, canChange: boolean): Meta {
  const meta = listOptions(resource, false, resource.label.replace(/ List$/, ''));
  if (canChange) (meta.actions as Meta).PUT = writeMeta(resource);
  return meta;
}

/** OPTIONS of an endpoint that is not a resource list (ping, config, me): what it is and what it speaks. */
export function viewOptions(name: string, description: string): Meta {
  return { name, description, renders: ['application/json', 'text/html'], parses: ['application/json'] };
}
