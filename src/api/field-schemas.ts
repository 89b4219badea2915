/**
 * JSON Schemas of a resource, made from its field declarations: its objects, its lists and their
 * query, for the OpenAPI document; and the bodies of create, replace and update, which describe and
 * also check them. A body schema takes for each field what the field's parse takes as of its type,
 * as AWX's serializers do ("5" for an integer, "true" for a boolean, null for a text field), so
 * its route refuses up front what the field could never take; the words of a refusal are the
 * declaration's (bodyWords), and the declarations then read what the schema passed (crud.ts
 * parseRequestBody). See docs/architecture.md, "Route schemas and the OpenAPI document".
 */
import { FALSE_VALUES, INTEGER_TEXT, ISO_DATETIME_TEXT, MAX_INTEGER, NUMBER_TEXT, TRUE_VALUES, type Field } from './fields.ts';
import { MAX_PAGE_SIZE } from './pagination.ts';
import { readField } from './read-field.ts';
import type { Resource } from './resource.ts';
import type { MethodSchema } from './route-schemas.ts';
import type { WriteMode } from './crud.ts';
import { NOT_BLANK } from './schema-errors.ts';

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
    if (Object.hasOwn(resource.links, name)) continue;
    const schema = fieldSchema(field);
    if (field.secret) schema.description = [field.helpText, 'Read back as $encrypted$.'].filter(Boolean).join(' ');
    properties[name] = field.readOnly ? { ...schema, readOnly: true } : schema;
  }
  // What `decorate` computes is not declared: an object may hold more keys than these.
  return { type: 'object', properties, required: Object.keys(properties), additionalProperties: true };
}

const ID_TEXT = '0*[1-9][0-9]*';

/** An object's id in a body: an integer, or its digits as a string (AWX's PrimaryKeyRelatedField). */
const idSchema = (field: Field): JsonSchema => ({
  type: ['integer', 'string'],
  minimum: 1,
  maximum: MAX_INTEGER,
  pattern: `^${ID_TEXT}$`,
  description: `ID of the ${field.ref!.replace(/_/g, ' ')}.`,
});

/** The text of one of these integers: what an integer field with choices takes as a string ("2", "02"). */
function integerChoicesText(values: number[]): string {
  const alternatives = values.map((n) => (n === 0 ? '-?0+' : n > 0 ? `0*${n}` : `-0*${-n}`));
  return `^(?:${alternatives.join('|')})$`;
}

/** What a body may give for a field, null aside: what its parse takes as of its type. */
function acceptedType(field: Field): JsonSchema {
  if (field.valueSchema) return { ...field.valueSchema };
  switch (field.optionsType) {
    case 'string':
      return {
        type: 'string',
        ...(field.allowBlank === false ? { pattern: NOT_BLANK } : field.required && { minLength: 1 }),
      };
    case 'integer':
      return { type: ['integer', 'string'], pattern: INTEGER_TEXT.source, minimum: Math.max(field.min ?? -MAX_INTEGER, -MAX_INTEGER), maximum: Math.min(field.max ?? MAX_INTEGER, MAX_INTEGER) };
    case 'float':
      return { type: ['number', 'string'], pattern: NUMBER_TEXT.source, ...(field.min !== undefined && { minimum: field.min }), ...(field.max !== undefined && { maximum: field.max }) };
    case 'boolean':
      return { type: ['boolean', 'string', 'integer'], enum: [true, false, ...TRUE_VALUES, ...FALSE_VALUES] };
    case 'datetime':
      return { type: 'string', pattern: ISO_DATETIME_TEXT, description: 'An ISO 8601 date or datetime; UTC without an offset.' };
    case 'choice': {
      const values = field.choices!.map(([value]) => value);
      if (typeof values[0] === 'number') {
        const numbers = values as number[];
        return { anyOf: [{ type: 'integer', enum: numbers }, { type: 'string', pattern: integerChoicesText(numbers) }] };
      }
      // A required field may not be blank, even where "" is a choice.
      return { type: 'string', enum: field.required ? values.filter((v) => v !== '') : values };
    }
    case 'id':
      // A nullable reference takes "" for none (fields.ts ref).
      return field.nullable ? { ...idSchema(field), pattern: `^(?:${ID_TEXT})?$` } : idSchema(field);
    case 'list_of_ids':
      return { type: 'array', items: idSchema(field) };
    default:
      return { type: ['object', 'array', 'string', 'number', 'boolean'], additionalProperties: true };
  }
}

/** Whether a body may give null for the field: a nullable one, or one that reads null as a value it takes (Field.nullMeans). */
function takesNull(field: Field): boolean {
  // A required field may be neither null nor blank; false is a value.
  if (field.nullable) return !field.required;
  if (field.nullMeans === false) return true;
  if (field.nullMeans !== '' || field.required) return false;
  return field.optionsType === 'choice' ? field.choices!.some(([value]) => value === '') : field.allowBlank !== false;
}

function withNull(schema: JsonSchema): JsonSchema {
  if (Array.isArray(schema.enum)) schema.enum = [...schema.enum, null];
  if (Array.isArray(schema.type)) schema.type = [...schema.type, 'null'];
  else if (typeof schema.type === 'string') schema.type = [schema.type, 'null'];
  else if (Array.isArray(schema.anyOf)) schema.anyOf = [...schema.anyOf, { type: 'null' }];
  return schema;
}

/** A field of a body: the values it takes (null where it takes null), its limits, label, help text and default. */
export function acceptedSchema(field: Field): JsonSchema {
  const schema = acceptedType(field);
  if (field.maxLength !== undefined) schema.maxLength = field.maxLength;
  if (takesNull(field)) withNull(schema);
  if (field.label) schema.title = field.label;
  if (field.helpText) schema.description = [schema.description, field.helpText].filter(Boolean).join(' ');
  if (field.default !== undefined) schema.default = field.default;
  if (field.secret) schema.writeOnly = true;
  return schema;
}

/**
 * The body of create (POST) and replace (PUT): every writable field, the required ones required
 * (but secrets on replace: a replace keeps a secret it does not give); of update (PATCH): any of
 * them. Undeclared and read-only keys are ignored, as AWX ignores them.
 */
export function bodySchema(resource: Resource, mode: WriteMode, fixed: readonly string[] = []): JsonSchema {
  const properties: Record<string, JsonSchema> = {};
  const required: string[] = [];
  for (const [name, field] of Object.entries(resource.fields)) {
    if (field.readOnly || fixed.includes(name)) continue;
    properties[name] = acceptedSchema(field);
    if (field.required && (mode === 'create' || (mode === 'replace' && !field.secret))) required.push(name);
  }
  return { type: 'object', properties, ...(required.length && { required }), additionalProperties: true };
}

/**
 * The words of a value a body schema refuses: what the field's declaration says of it, so that a
 * value is refused alike whether the schema or the declaration finds it (route-schemas.ts
 * MethodSchema.fieldWords). Undefined where the declaration would take it.
 */
export function bodyWords(resource: Resource): (name: string, value: unknown) => string | undefined {
  return (name, value) => {
    const field = resource.fields[name];
    if (!field || field.readOnly) return undefined;
    const reading = readField(field, value, null);
    return 'problem' in reading ? reading.problem : undefined;
  };
}

/** The route schema of a body checked by the resource's body schema, described by it too. */
export const checkedBodySchema = (resource: Resource, mode: WriteMode, fixed: readonly string[] = []) =>
  ({ body: bodySchema(resource, mode, fixed), checkBody: true, fieldWords: bodyWords(resource) }) satisfies MethodSchema;

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
    POST: { summary: `Create a ${one}`, ...checkedBodySchema(resource, 'create'), response: { 201: object } },
  };
  const detail: Record<string, MethodSchema> = {
    GET: { summary: `Read a ${one}`, response: { 200: object } },
    OPTIONS: OPTIONS_RESPONSE,
    PUT: { summary: `Replace a ${one}`, ...checkedBodySchema(resource, 'replace'), response: { 200: object } },
    PATCH: { summary: `Update a ${one}`, ...checkedBodySchema(resource, 'update'), response: { 200: object } },
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
