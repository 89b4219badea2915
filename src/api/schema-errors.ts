/**
 * A body a route's schema refuses, answered as AWX answers a serializer's errors: 400 with
 * {field: ["message"]} in Django REST framework's words, or {detail} when the body is not an object.
 */
import type { FastifySchemaValidationError } from 'fastify';
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
    default:
      return error.message ?? 'Invalid value.';
  }
}

/** Fastify's schemaErrorFormatter: the first problem of each top-level field, as AWX reports them. */
export function awxSchemaError(errors: FastifySchemaValidationError[]): Error {
  const fields: FieldErrors = {};
  for (const error of errors) {
    const [, field] = error.instancePath.split('/');
    if (field === undefined) {
      if (error.keyword === 'type') return new ApiError(400, { detail: 'Invalid data. Expected a dictionary.' });
      if (error.keyword !== 'required') return new ApiError(400, { detail: message(error) });
      const missing = (error.params as { requiredProperties?: string[]; missingProperty?: string });
      for (const name of missing.requiredProperties ?? [missing.missingProperty ?? '']) fields[name] ??= ['This field is required.'];
      continue;
    }
    const name = field.replace(/~1/g, '/').replace(/~0/g, '~');
    fields[name] ??= [message(error)];
  }
  return new ValidationError(Object.keys(fields).length ? fields : { __all__: ['Invalid data.'] });
}
