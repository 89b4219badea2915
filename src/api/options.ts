import { boolean, completeField, json, text, type Field } from './fields.ts';
import { MAX_PAGE_SIZE } from './pagination.ts';
import type { Resource } from './resource.ts';
import type { ResourceSet } from './context.ts';

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
  if (field.optionsMeta) Object.assign(meta, field.optionsMeta);
  return meta;
}

/** The choices of `type`: each type with what its resource calls it (typeLabel), the list's own for a type without one. */
function typeChoices(resources: ResourceSet, resource: Resource): [string, string][] {
  return resource.types.map((type) => [type, (resources.find(type) ?? resource).typeLabel]);
}

/** Field metadata for reads: every field, read-only ones included (the labels of a mixed list's types from `resources`). */
export function readMeta(resources: ResourceSet, resource: Resource): Meta {
  const meta: Meta = { ...BUILTIN, type: { ...BUILTIN.type, choices: typeChoices(resources, resource) } };
  for (const [name, field] of Object.entries(resource.fields)) meta[name] = fieldMeta(field, false);
  return meta;
}

/** Field metadata for writes: only what a client may send. */
export function writeMeta(resource: Resource): Meta {
  const meta: Meta = {};
  for (const [name, field] of Object.entries(resource.fields)) if (!field.readOnly) meta[name] = fieldMeta(field, true);
  return meta;
}

/**
 * OPTIONS of a list: its fields, POST when the caller may create, AWX's `types`, and what only
 * AWX's list views add: `search_fields`, `related_search_fields` and `max_page_size`.
 */
export function listOptions(resources: ResourceSet, resource: Resource, canCreate: boolean, name = resource.label): Meta {
  const related = [
    ...Object.entries(resource.allFields).filter(([, f]) => f.ref).map(([n]) => n),
    ...Object.keys(resource.related),
  ];
  return {
    ...describe(resources, resource, canCreate, name),
    search_fields: resource.search,
    related_search_fields: related.map((r) => `${r}__search`),
    max_page_size: MAX_PAGE_SIZE,
  };
}

function describe(resources: ResourceSet, resource: Resource, canCreate: boolean, name: string): Meta {
  const actions: Meta = { GET: readMeta(resources, resource) };
  if (canCreate) actions.POST = writeMeta(resource);
  const meta: Meta = {
    name,
    description: resource.description,
    renders: ['application/json', 'text/html'],
    parses: ['application/json'],
    actions,
    types: resource.types,
  };
  if (Object.keys(resource.roles).length) meta.object_roles = Object.keys(resource.roles);
  return meta;
}

export function detailOptions(resources: ResourceSet, resource: Resource, canChange: boolean): Meta {
  const meta = describe(resources, resource, false, resource.label.replace(/ List$/, ''));
  if (canChange) (meta.actions as Meta).PUT = writeMeta(resource);
  return meta;
}

/** OPTIONS of an endpoint that is not a resource list (ping, config, me): what it is and what it speaks. */
export function viewOptions(name: string, description: string): Meta {
  return { name, description, renders: ['application/json', 'text/html'], parses: ['application/json'] };
}

/**
 * OPTIONS of an action endpoint (launch/, relaunch/, update/), with `actions` as AWX's serializer
 * of the endpoint describes it: GET the fields it answers, POST those it takes. awxkit builds the
 * arguments of `awx job_templates launch` from actions.POST, so POST is always there.
 */
export function actionOptions(
  name: string,
  description: string,
  fields: { GET: Record<string, Field>; POST: Record<string, Field> },
): Meta {
  const describeFields = (declared: Record<string, Field>, forWrite: boolean) =>
    Object.fromEntries(Object.entries(declared).map(([field, f]) => [field, fieldMeta(completeField(field, f), forWrite)]));
  return { ...viewOptions(name, description), actions: { GET: describeFields(fields.GET, false), POST: describeFields(fields.POST, true) } };
}

/** OPTIONS of a copy/ endpoint: GET answers can_copy, POST takes the new name (AWX's CopySerializer). */
export function copyOptions(name: string, description: string): Meta {
  return actionOptions(name, description, { GET: { can_copy: boolean({ readOnly: true }) }, POST: { name: text({ required: true, maxLength: 512 }) } });
}

/** OPTIONS of a survey_spec/ endpoint: the survey is one JSON document (AWX's view has no serializer fields). */
export function surveySpecOptions(name: string, description: string): Meta {
  return actionOptions(name, description, { GET: {}, POST: {} });
}

/** OPTIONS of an update/ endpoint: GET answers can_update, POST takes nothing (AWX's *UpdateViewSerializer). */
export function updateOptions(name: string, description: string): Meta {
  return actionOptions(name, description, { GET: { can_update: boolean({ readOnly: true }) }, POST: {} });
}

/** OPTIONS of an ad hoc command's relaunch/: the passwords it needs, given in POST. */
export function passwordsOptions(name: string, description: string): Meta {
  return actionOptions(name, description, {
    GET: { passwords_needed_to_start: json({ readOnly: true }) },
    POST: { credential_passwords: json({ helpText: 'Passwords the credential asks for at launch, by name.' }) },
  });
}
