/**
 * A body a route's schema refuses, answered as AWX answers a serializer's errors: 400 with
 * {field: ["message"]} in Django REST framework's words, or {detail} when the body is not an object.
 */
import type { FastifySchemaValidationError } from 'fastify';
import type { TSchema } from 'typebox';
import { ApiError, ValidationError, type FieldErrors } from './errors.ts';

/** The pattern of a string that may not be blank (DRF's allow_blank=False), which has its own message. */
export const NOT_BLANK = '\\S';

const TYPE_MESSAGES: Record<string, string> = {
  string: 'Not a valid string.',
  integer: 'A valid integer is required.',
  number: 'A valid number is required.',
  boolean: 'Must be a valid boolean.',
  object: 'Expected a dictionary of items.',
  array: 'Expected a list of items.',
};

/** The type of a JSON value as DRF names it in its messages (Python's: list, dict, str, int, NoneType...). */
export function jsonTypeName(value: unknown): string {
  if (value === null) return 'NoneType';
  if (Array.isArray(value)) return 'list';
  if (typeof value === 'number') return Number.isInteger(value) ? 'int' : 'float';
  return { string: 'str', boolean: 'bool', object: 'dict' }[typeof value as string] ?? typeof value;
}

/** The words of a value a top-level field's schema refuses, when the field has words of its own (route-schemas.ts MethodSchema.fieldWords). */
export type FieldWords = (name: string, value: unknown) => string | undefined;

/**
 * A schema error with what its message needs: the type of a body that is no object, the words
 * `words` has for the field, or the message a top-level field's schema names (`errorMessage`,
 * `{input}` standing for the value given and `{type}` for its type), which every problem of that
 * field answers with (an id given as an integer or a string of digits: "A valid integer is required.").
 */
export function explained<E extends FastifySchemaValidationError>(error: E, schema: TSchema, body: unknown, words?: FieldWords): E {
  const [, field] = error.instancePath.split('/');
  if (field === undefined) return error.keyword === 'type' ? { ...error, params: { ...error.params, got: jsonTypeName(body) } } : error;
  const name = decodePointer(field);
  const said = words?.(name, (body as Record<string, unknown>)[name]);
  if (said !== undefined) return { ...error, keyword: 'errorMessage', message: said };
  const properties = (schema as { properties?: Record<string, { errorMessage?: unknown }> }).properties;
  const own = properties?.[name]?.errorMessage;
  if (typeof own !== 'string') return error;
  // DRF's messages name the value given ('"x" is not a valid choice.') or its type ('received str').
  const input = (body as Record<string, unknown>)[name];
  const message = own.replace('{input}', typeof input === 'object' ? JSON.stringify(input) : String(input)).replace('{type}', jsonTypeName(input));
  return { ...error, keyword: 'errorMessage', message };
}

const decodePointer = (segment: string) => segment.replace(/~1/g, '/').replace(/~0/g, '~');

function message(error: FastifySchemaValidationError): string {
  const params = error.params as Record<string, unknown>;
  switch (error.keyword) {
    case 'type':
      return TYPE_MESSAGES[String(params.type)] ?? 'Incorrect type.';
    case 'minLength':
      return params.limit === 1 ? 'This field may not be blank.' : `Ensure this field has at least ${params.limit} characters.`;
    case 'maxLength':
      return `Ensure this field has no more than ${params.limit} characters.`;
    case 'pattern':
      return params.pattern === NOT_BLANK ? 'This field may not be blank.' : 'Enter a valid value.';
    case 'minimum':
      return `Ensure this value is greater than or equal to ${params.limit}.`;
    case 'maximum':
      return `Ensure this value is less than or equal to ${params.limit}.`;
    case 'enum':
    case 'const':
    case 'anyOf':
      return 'Not a valid choice.';
    case 'errorMessage':
      return error.message!;
    default:
      return error.message ?? 'Invalid value.';
  }
}

/** Fastify's schemaErrorFormatter: the first problem of each top-level field, as AWX reports them. */
export function awxSchemaError(errors: FastifySchemaValidationError[]): Error {
  const fields: FieldErrors = {};
  for (const error of errors) {
    const [, field] = error.instancePath.split('/');
    // A failed `if` only repeats the problems of the branch it chose (a related list's link or create body).
    if (error.keyword === 'if') continue;
    if (field === undefined) {
      if (error.keyword === 'type') {
        const got = (error.params as { got?: string }).got;
        return new ApiError(400, { detail: `Invalid data. Expected a dictionary${got ? `, but got ${got}` : ''}.` });
      }
      if (error.keyword !== 'required') return new ApiError(400, { detail: message(error) });
      const missing = (error.params as { requiredProperties?: string[]; missingProperty?: string });
      for (const name of missing.requiredProperties ?? [missing.missingProperty ?? '']) fields[name] ??= ['This field is required.'];
      continue;
    }
    const name = decodePointer(field);
    fields[name] ??= [message(error)];
  }
  return new ValidationError(Object.keys(fields).length ? fields : { __all__: ['Invalid data.'] });
}
