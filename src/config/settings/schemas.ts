/**
 * Schemas of /api/v2/settings/ and /api/v2/settings/<category>/: a write's body is checked to be an
 * object here, its values by the settings store.
 */
import { Type } from 'typebox';
import type { MethodSchema } from '../../api/route-schemas.ts';

export const Values = Type.Record(Type.String(), Type.Unknown(), { description: 'Settings of the category by name (OPTIONS lists them, with their types).' });
const Category = Type.Object({ url: Type.String(), slug: Type.String(), name: Type.String() });
const Options: MethodSchema = { summary: 'Describe the endpoint (AWX OPTIONS metadata)', response: { 200: Type.Object({}, { additionalProperties: true }) } };

export const categoryListSchemas: Record<string, MethodSchema> = {
  GET: { summary: 'Settings categories', response: { 200: Type.Object({ count: Type.Integer(), next: Type.Null(), previous: Type.Null(), results: Type.Array(Category) }) } },
  OPTIONS: Options,
};

export const categorySchemas: Record<string, MethodSchema> = {
  GET: { summary: 'The settings of a category', response: { 200: Values } },
  PATCH: { summary: 'Change the settings given (superusers)', body: Values, checkBody: true, response: { 200: Values } },
  PUT: { summary: 'Replace the settings of the category: those not given return to their defaults (superusers)', body: Values, checkBody: true, response: { 200: Values } },
  DELETE: { summary: 'Return every setting of the category to its default (superusers)', response: { 204: Type.Null({ description: 'No content.' }) } },
  OPTIONS: Options,
};
