/**
 * Route schemas: what each method of a route takes and answers, for the OpenAPI document
 * (/api/v2/openapi.json). A schema describes and changes nothing, responses are plain JSON, except
 * a body schema a route asks to check (`checkBody`): its handler then reads the body with
 * validBody. Resource create and update bodies are checked by their field declarations instead
 * (docs/architecture.md, "Route schemas and the OpenAPI document").
 */
import type { FastifyRequest, FastifySchema, FastifySchemaCompiler } from 'fastify';
import type { Static, TSchema } from 'typebox';
import { Compile } from 'typebox/compile';
import { explained } from './schema-errors.ts';

/** The schema of one method of a route (summary, description, querystring, body, response...). */
export interface MethodSchema extends FastifySchema {
  /**
   * Check the body against `body` before the handler runs. A failure is not answered at once: the
   * handler meets it when it calls validBody, after its own permission checks (a caller who may
   * not post here learns nothing about the body), as AWX checks permission before validation.
   * A schema instead of `true` is checked in place of `body`, when the documented body says more
   * than the route checks up front (a launch's prompts, whose values acceptPrompts checks).
   */
  checkBody?: boolean | TSchema;
}

export type MethodSchemas = Partial<Record<string, MethodSchema>>;

declare module 'fastify' {
  interface FastifyContextConfig {
    /** The body schema this route checks (see MethodSchema.checkBody). */
    checkedBody?: TSchema;
  }
}

/** Accepts every value as it is: the schema only documents. */
export const describeOnly: FastifySchemaCompiler<unknown> = () => () => true;

/**
 * Checks the body with this TypeBox schema, leaving it unchanged (no coercion, no defaults filled
 * in); other parts are described only. A missing body, or JSON null, is checked as {}, as the
 * handlers read it. Errors carry what the 400 needs beyond TypeBox's (schema-errors.ts).
 */
export const checkBodyWith = (checked: TSchema): FastifySchemaCompiler<TSchema> => ({ httpPart }) => {
  if (httpPart !== 'body') return () => true;
  const validator = Compile(checked);
  return (value) => {
    const body = value ?? {};
    return validator.Check(body) ? true : { error: [...validator.Errors(body)].map((error) => explained(error, checked, body)) };
  };
};

/** Fastify route options for one method with this schema. */
export function schemaOptions(schema: MethodSchema | undefined) {
  if (!schema) return {};
  const { checkBody, ...described } = schema;
  const checked = checkBody === true ? (described.body as TSchema) : checkBody || undefined;
  return {
    schema: checked && !described.body ? { ...described, body: checked } : described,
    attachValidation: true,
    validatorCompiler: checked ? checkBodyWith(checked) : describeOnly,
    checkedBody: checked,
  };
}

/**
 * The body of a route that checks it (MethodSchema.checkBody) with this schema: throws the
 * AWX-style 400 the check made, or answers the body as the schema types it.
 */
export function validBody<S extends TSchema>(request: FastifyRequest, schema: S): Static<S> {
  if (request.routeOptions.config.checkedBody !== schema) {
    throw new Error(`${request.method} ${request.routeOptions.url} does not check its body with this schema`);
  }
  if (request.validationError) throw request.validationError;
  return (request.body ?? {}) as Static<S>;
}
