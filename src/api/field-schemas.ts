/**
 * JSON Schemas of a resource, made from its field declarations, for the OpenAPI document: its
 * objects, its lists and their query, and the bodies of create, replace and update. They describe
 * what the declarations validate (crud.ts parseBody) and are never used to validate.
 */
import type { Field } from './fields.ts';
import { MAX_PAGE_SIZE } from './pagination.ts';
import type { Resource } from './resource.ts';
import type { MethodSchema } from './route-schemas.ts';
import type { WriteMode } from './crud.ts';

type JsonSchema = Record<string, unknown>;

function valueSchema(field: Field): JsonSchema {
  switch (field.optionsType) {
    case 'string':
      return { type: 'string', ...(field.maxLength !== undefined && { maxLength: field.maxLength }) };
    case 'integer':
    case 'float':
      return { type: field.optionsType === 'float' ? 'number' : 'integer', ...(field.min !== undefined && { minimum: field.min }), ...(field.max !== undefined && { maximum: field.max }) };
    case 'boolean':
      return { type: 'boolean' };
    case 'datetime':
      return { type: 'string', format: 'date-time' };
    case 'choice':
      return { type: typeof field.choices![0]?.[0] === 'number' ? 'integer' : 'string', enum: field.choices!.map(([value]) => value) };
    case 'id':
      return { type: 'integer', minimum: 1, description: `ID of the ${field.ref!.replace(/_/g, ' ')}.` };
    default:
      return field.valueSchema ? { ...field.valueSchema } : {};
  }
}

/** One field: its type (null allowed when nullable), label, help text and default. */
export function fieldSchema(field: Field): JsonSchema {
  const schema = valueSchema(field);
  if (field.nullable && typeof schema.type === 'string') schema.type = [schema.type, 'null'];
  if (field.nullable && Array.isArray(schema.enum)) schema.enum = [...schema.enum, null];
  if (field.label) schema.title = field.label;
  if (field.helpText) schema.description = field.helpText;
  if (field.default !== undefined) schema.default = field.default;
  return schema;
}

const LINKS = { type: 'object', additionalProperties: { type: 'string' } };

/** AWX's summary_fields: a summary of each referenced object, the object's roles, what the caller may do. */
const SUMMARY_FIELDS: JsonSchema = {
  type: 'object',
  description: 'Summaries of referenced objects, object_roles and user_capabilities.',
  properties: {
    user_capabilities: { type: 'object', additionalProperties: { type: 'boolean' } },
    object_roles: {
      type: 'object',
      additionalProperties: {
        type: 'object',
        properties: { id: { type: 'integer' }, name: { type: 'string' }, description: { type: 'string' }, user_only: { type: 'boolean' } },
        required: ['id', 'name', 'description'],
      },
    },
  },
  required: ['user_capabilities'],
  additionalProperties: true,
};

/** A serialized object: the framework's own keys, then every field (secrets read back as $encrypted$); serializeRows writes them all. */
export function objectSchema(resource: Resource): JsonSchema {
  const properties: Record<string, JsonSchema> = {
    id: { type: 'integer' },
    // The types an object of this list may be (one, or each kind a mixed list such as unified_jobs holds).
    type: resource.types.length ? { type: 'string', enum: [...resource.types] } : { type: 'string' },
    url: { type: 'string' },
    related: { ...LINKS, description: 'URLs of related resources (named_url, activity_stream, related lists).' },
    summary_fields: SUMMARY_FIELDS,
  };
  for (const [name, field] of Object.entries(resource.allFields)) {
    const schema = fieldSchema(field);
    if (field.secret) schema.description = [field.helpText, 'Read back as $encrypted$.'].filter(Boolean).join(' ');
    properties[name] = field.readOnly ? { ...schema, readOnly: true } : schema;
  }
  // What `decorate` computes is not declared: an object may hold more keys than these.
  return { type: 'object', properties, required: Object.keys(properties), additionalProperties: true };
}

/** The body of create (POST) and replace (PUT): every writable field, the required ones required; of update (PATCH): any of them. */
export function bodySchema(resource: Resource, mode: WriteMode, fixed: readonly string[] = []): JsonSchema {
  const properties: Record<string, JsonSchema> = {};
  const required: string[] = [];
  for (const [name, field] of Object.entries(resource.fields)) {
    if (field.readOnly || fixed.includes(name)) continue;
    properties[name] = field.secret ? { ...fieldSchema(field), writeOnly: true } : fieldSchema(field);
    if (field.required && mode !== 'update') required.push(name);
  }
  return { type: 'object', properties, ...(required.length && { required }) };
}

export function pageSchema(resource: Resource): JsonSchema {
  const link = { type: ['string', 'null'] };
  return {
    type: 'object',
    properties: { count: { type: 'integer' }, next: link, previous: link, results: { type: 'array', items: objectSchema(resource) } },
    required: ['count', 'next', 'previous', 'results'],
  };
}

/** What a list takes besides the field filters (name=, name__icontains=, organization__name=...). */
export function listQuerySchema(resource: Resource): JsonSchema {
  const properties: Record<string, JsonSchema> = {
    page: { type: 'integer', minimum: 1, description: 'Page number (404 beyond the last page).' },
    page_size: { type: 'integer', minimum: 1, maximum: MAX_PAGE_SIZE, description: `Objects per page (default 25, at most ${MAX_PAGE_SIZE}).` },
    search: { type: 'string', description: `Terms, comma-separated, each found in one of: ${resource.search.join(', ') || 'no field'}.` },
    order_by: { type: 'string', description: 'Fields, comma-separated, "-" first for descending (related fields one level deep).' },
  };
  const formats = Object.keys(resource.exports);
  if (formats.length) properties.format = { type: 'string', enum: formats, description: 'The whole list as one download, unpaginated.' };
  return { type: 'object', properties };
}

export const OPTIONS_RESPONSE: MethodSchema = { summary: 'Describe the endpoint (AWX OPTIONS metadata)', response: { 200: { type: 'object' } } };
export const NO_CONTENT = { type: 'null', description: 'No content.' };

/** The schemas of a resource's list and detail routes, method by method. */
export function resourceRouteSchemas(resource: Resource) {
  const one = resource.label.replace(/ List$/, '');
  const object = objectSchema(resource);
  const list: Record<string, MethodSchema> = {
    GET: { summary: `List ${resource.label.replace(/ List$/, 's')}`, querystring: listQuerySchema(resource), response: { 200: pageSchema(resource) } },
    OPTIONS: OPTIONS_RESPONSE,
    POST: { summary: `Create a ${one}`, body: bodySchema(resource, 'create'), response: { 201: object } },
  };
  const detail: Record<string, MethodSchema> = {
    GET: { summary: `Read a ${one}`, response: { 200: object } },
    OPTIONS: OPTIONS_RESPONSE,
    PUT: { summary: `Replace a ${one}`, body: bodySchema(resource, 'replace'), response: { 200: object } },
    PATCH: { summary: `Update a ${one}`, body: bodySchema(resource, 'update'), response: { 200: object } },
    DELETE: { summary: `Delete a ${one}`, response: { 204: NO_CONTENT } },
  };
  return { list, detail };
}

/** POST on an attachable related list: {id} attaches an existing object, {id, disassociate: true} detaches it. */
export const ATTACH_BODY: JsonSchema = {
  type: 'object',
  properties: {
    id: { type: 'integer', minimum: 1, description: 'The object to attach or detach.' },
    disassociate: { type: 'boolean', description: 'Detach instead of attach.' },
  },
  required: ['id'],
};

/** The schemas of a related list: the target's list, and what POST takes (attach, or create with the link set). */
export function relatedRouteSchemas(target: Resource, post: { attach: boolean; create: boolean; fixed: readonly string[] }) {
  const bodies = [...(post.attach ? [ATTACH_BODY] : []), ...(post.create ? [bodySchema(target, 'create', post.fixed)] : [])];
  const schemas: Record<string, MethodSchema> = {
    GET: { summary: `List related ${target.label.replace(/ List$/, 's')}`, querystring: listQuerySchema(target), response: { 200: pageSchema(target) } },
    OPTIONS: OPTIONS_RESPONSE,
  };
  if (bodies.length) {
    schemas.POST = {
      summary: post.attach ? `Attach or detach a ${target.label.replace(/ List$/, '')}` : `Create a ${target.label.replace(/ List$/, '')} here`,
      body: bodies.length === 1 ? bodies[0] : { anyOf: bodies },
      response: { ...(post.create && { 201: objectSchema(target) }), ...(post.attach && { 204: NO_CONTENT }) },
    };
  }
  return schemas;
}
