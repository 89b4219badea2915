/**
 * Route schemas: what each method of a route takes and answers, for the OpenAPI document
 * (/api/v2/openapi.json). A schema describes and changes nothing, responses are plain JSON, except
 * a body schema a route asks to check (`checkBody`): its handler then reads the body with
 * validBody, or, for a resource's create, replace and update bodies (field-schemas.ts bodySchema),
 * with checkedBody and the field declarations (docs/architecture.md, "Route schemas and the
 * OpenAPI document").
 */
import type { FastifyRequest, FastifySchema, FastifySchemaCompiler } from 'fastify';
import type { Static, TSchema } from 'typebox';
import { Compile } from 'typebox/compile';
import { ApiError, ValidationError, type FieldErrors } from './errors.ts';
import { explained, jsonTypeName, type FieldWords } from './schema-errors.ts';

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
  /**
   * The words of a value the checked schema refuses for a top-level field, where the field has its
   * own (a resource's fields: what their declarations say, field-schemas.ts bodyWords); undefined
   * leaves the schema's words.
   */
  fieldWords?: FieldWords;
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
 * Checks the body with this schema (TypeBox's, or any JSON Schema TypeBox compiles), leaving it
 * unchanged (no coercion, no defaults filled in); other parts are described only. A missing body,
 * or JSON null, is checked as {}, as the handlers read it. Errors carry what the 400 needs beyond
 * TypeBox's (schema-errors.ts). The schema is compiled once per route, when its first body comes:
 * an app registers hundreds of checked routes, most of which a process never writes to.
 */
export const checkBodyWith = (checked: TSchema, words?: FieldWords): FastifySchemaCompiler<TSchema> => ({ httpPart }) => {
  if (httpPart !== 'body') return () => true;
  let validator: ReturnType<typeof Compile<TSchema>> | undefined;
  return (value) => {
    const body = value ?? {};
    validator ??= Compile(checked);
    return validator.Check(body) ? true : { error: [...validator.Errors(body)].map((error) => explained(error, checked, body, words)) };
  };
};

/** Fastify route options for one method with this schema. */
export function schemaOptions(schema: MethodSchema | undefined) {
  if (!schema) return {};
  const { checkBody, fieldWords, ...described } = schema;
  const checked = checkBody === true ? (described.body as TSchema) : checkBody || undefined;
  return {
    schema: checked && !described.body ? { ...described, body: checked } : described,
    attachValidation: true,
    validatorCompiler: checked ? checkBodyWith(checked, fieldWords) : describeOnly,
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

/**
 * The body of a route that checks it with a resource's body schema, and what the schema refused
 * by field: the handler reads the rest with the field declarations and answers every problem at
 * once, after its permission check (crud.ts parseRequestBody). A body that is no object is
 * refused here, as a whole.
 */
export function checkedBody(request: FastifyRequest): { body: Record<string, unknown>; refused: FieldErrors } {
  if (!request.routeOptions.config.checkedBody) throw new Error(`${request.method} ${request.routeOptions.url} does not check its body`);
  // A missing body is checked as {}, but JSON null is no object to a serializer (AWX: "got NoneType").
  if (request.body === null) throw new ApiError(400, { detail: `Invalid data. Expected a dictionary, but got ${jsonTypeName(null)}.` });
  const refusal = request.validationError;
  if (refusal && !(refusal instanceof ValidationError)) throw refusal;
  return { body: (request.body ?? {}) as Record<string, unknown>, refused: refusal ? refusal.errors : {} };
}
