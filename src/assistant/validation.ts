/**
 * Request checks of the assistant, answered as FastAPI answers them (the shape clients of such
 * services expect): 422 with `{"detail": [{"loc": [...], "msg": "...", "type": "..."}]}`. Bodies are
 * checked as sent (no coercion: 42 is not a string); query values are read as booleans or numbers first.
 */
import type { FastifyError, FastifyReply, FastifyRequest, FastifySchemaCompiler, FastifySchemaValidationError } from 'fastify';
import type { TSchema } from 'typebox';
import { Compile } from 'typebox/compile';
import { Value } from 'typebox/value';
import { ApiError } from '../api/errors.ts';
import { containsNul } from '../db/nul.ts';

interface Problem {
  loc: Array<string | number>;
  msg: string;
  type: string;
}

const NUL_PROBLEM = { instancePath: '', keyword: 'nul', params: {}, message: 'Null characters are not allowed.', schemaPath: '' };

export const checkRequestPart: FastifySchemaCompiler<TSchema> = ({ schema, httpPart }) => {
  if (httpPart !== 'body' && httpPart !== 'querystring') return () => true;
  const validator = Compile(schema);
  if (httpPart === 'querystring') {
    return (value) => {
      const converted = Value.Convert(schema, structuredClone(value ?? {}));
      return validator.Check(converted) ? { value: converted } : { error: [...validator.Errors(converted)] as FastifySchemaValidationError[] };
    };
  }
  return (value) => {
    if (!validator.Check(value)) return { error: [...validator.Errors(value)] as FastifySchemaValidationError[] };
    return containsNul(value) ? { error: [NUL_PROBLEM] } : true;
  };
};

function describe(error: FastifySchemaValidationError): Omit<Problem, 'loc'> {
  const params = error.params as Record<string, any>;
  switch (error.keyword) {
    case 'required':
      return { msg: 'Field required', type: 'missing' };
    case 'type':
      return { msg: `Input should be a valid ${params.type === 'object' ? 'dictionary' : params.type === 'array' ? 'list' : params.type}`, type: `${params.type}_type` };
    case 'minLength':
      return { msg: `String should have at least ${params.limit} character${params.limit === 1 ? '' : 's'}`, type: 'string_too_short' };
    case 'maxLength':
      return { msg: `String should have at most ${params.limit} characters`, type: 'string_too_long' };
    case 'pattern':
      return params.pattern === '\\S' ? { msg: 'String should not be blank', type: 'string_blank' } : { msg: 'String should match the expected pattern', type: 'string_pattern_mismatch' };
    case 'enum':
      return { msg: `Input should be ${(params.allowedValues as unknown[]).map((v) => `'${v}'`).join(' or ')}`, type: 'enum' };
    case 'maxItems':
      return { msg: `List should have at most ${params.limit} items`, type: 'too_long' };
    case 'nul':
      return { msg: 'Null characters are not allowed.', type: 'value_error' };
    default:
      return { msg: error.message ?? 'Invalid value', type: error.keyword };
  }
}

/** Fastify's schemaErrorFormatter: every problem, each located as FastAPI locates it. */
export function unprocessable(errors: FastifySchemaValidationError[], dataVar: string): ApiError {
  const part = dataVar === 'querystring' ? 'query' : dataVar;
  const detail = errors.flatMap((error): Problem[] => {
    const loc: Array<string | number> = [part, ...error.instancePath.split('/').filter(Boolean).map((s) => (/^\d+$/.test(s) ? Number(s) : s.replace(/~1/g, '/').replace(/~0/g, '~')))];
    const problem = describe(error);
    if (error.keyword !== 'required') return [{ loc, ...problem }];
    return ((error.params as { requiredProperties?: string[] }).requiredProperties ?? []).map((name) => ({ loc: [...loc, name], ...problem }));
  });
  return new ApiError(422, { detail });
}

/** The app's error handler: an ApiError as it is, what Fastify refuses as 4xx, anything else a logged 500 without detail. */
export function errorHandler(err: FastifyError | Error, request: FastifyRequest, reply: FastifyReply): FastifyReply {
  if (err instanceof ApiError) return reply.code(err.status).send(err.body);
  const code = (err as FastifyError).code;
  if (code === 'FST_ERR_CTP_INVALID_JSON_BODY' || code === 'FST_ERR_CTP_EMPTY_JSON_BODY' || err instanceof SyntaxError) {
    return reply.code(422).send({ detail: [{ loc: ['body'], msg: 'JSON decode error', type: 'json_invalid' }] });
  }
  const status = (err as FastifyError).statusCode;
  if (status && status >= 400 && status < 500) return reply.code(status).send({ detail: err.message });
  request.log.error({ err }, 'unhandled error');
  return reply.code(500).send({ detail: 'A server error has occurred.' });
}
