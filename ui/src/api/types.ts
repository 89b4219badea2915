/**
 * The console's API types, read from the generated schema (schema.d.ts, `npm run ui:types`): the
 * objects of each resource, the bodies and answers of each route, and the choices of their fields.
 * Nothing here repeats a server enum: when the server changes one, the console stops compiling where
 * it relied on the old values.
 */
import type { paths } from './schema';

export type ApiPath = keyof paths;
type Method = 'get' | 'post' | 'put' | 'patch' | 'delete' | 'options';

type JsonOf<R> = R extends { content: { 'application/json': infer B } } ? B : never;
type Success<R> = R extends Record<200, infer A> ? A : R extends Record<201, infer A> ? A : never;

/** The JSON answer (200, else 201) of `method` at `path`. */
export type ApiAnswer<P extends ApiPath, M extends Method = 'get'> = P extends ApiPath ? (paths[P][M] extends { responses: infer R } ? JsonOf<Success<R>> : never) : never;

/** The JSON body `method` at `path` takes. */
export type ApiBody<P extends ApiPath, M extends Method> = paths[P][M] extends { requestBody?: infer B } ? JsonOf<B> : never;

type PageAt<P extends ApiPath> = ApiAnswer<P> extends { results: (infer O)[] } ? O : never;

/** The key of each resource: its list is /api/v2/<key>/, answering pages of its objects. */
export type ResourceKey = {
  [P in ApiPath]: P extends `/api/v2/${infer K}/` ? (K extends `${string}/${string}` ? never : PageAt<P> extends { id: number; summary_fields: object } ? K : never) : never;
}[ApiPath];

/** An object of the resource `K` as the API serializes it. */
export type ResourceObject<K extends ResourceKey> = K extends ResourceKey ? PageAt<`/api/v2/${K}/`> : never;

/** The value type of `field` of resource `K` (its enum when the field is a choice). */
export type FieldOf<K extends ResourceKey, F extends keyof ResourceObject<K>> = ResourceObject<K>[F];

/**
 * An object of any resource: the keys every resource's objects carry (id, type, url, related,
 * summary_fields), the others read by name. Only the generic resource pages (lists, details and
 * forms of any resource, their row actions and cells) take this; a page of one resource takes its
 * ResourceObject.
 */
export type AnyResource = Pick<ResourceObject<ResourceKey>, 'id' | 'type' | 'url' | 'related' | 'summary_fields'> & { [field: string]: unknown };

export type SummaryFields = AnyResource['summary_fields'];
export type UserCapabilities = SummaryFields['user_capabilities'];

/** OPTIONS metadata of one field (AWX's metadata; the OpenAPI document does not describe it). */
export interface FieldMeta {
  type: string;
  label?: string;
  help_text?: string;
  required?: boolean;
  read_only?: boolean;
  filterable?: boolean;
  choices?: [string | number, string][];
  default?: unknown;
  allow_null?: boolean;
  max_length?: number;
  [key: string]: unknown;
}

export interface OptionsDoc {
  name: string;
  description?: string;
  actions?: { GET?: Record<string, FieldMeta>; POST?: Record<string, FieldMeta>; PUT?: Record<string, FieldMeta> };
  search_fields?: string[];
  related_search_fields?: string[];
  types?: string[];
}

/**
 * Where the caller stands with the second factor (docs/webauthn.md#the-wall): /api/v2/me/ and the
 * logins answer it beside the user.
 */
export interface SecondFactorStanding {
  /** An organization he belongs to asks him for a passkey after his password. */
  second_factor_required: boolean;
  /** This session must pass the second factor before the rest of the API answers it. */
  second_factor_pending: boolean;
  /** How many passkeys he has: none means registering one first. */
  webauthn_credentials: number;
}

/** /api/v2/me/ answers a page of one user. */
export type Me = ResourceObject<'users'> & SecondFactorStanding;
