/** Schemas of survey_spec/dynamic_choices/ (the body's shape is checked here, its variables by resolve.ts). */
import { Type, type Static } from 'typebox';
import { OPTIONS_RESPONSE } from '../../../api/action-schemas.ts';
import type { MethodSchema } from '../../../api/route-schemas.ts';
import { SOURCE_TYPES } from './source-spec.ts';

const Resolved = Type.Object({
  choices: Type.Array(Type.String(), { maxItems: 500, description: 'Distinct; the first 500 the source gives.' }),
  source_type: Type.Enum([...SOURCE_TYPES]),
  error: Type.Optional(Type.String({ description: 'Why the source gave no choices (failure or timeout).' })),
});

/** POST: the variables to resolve, every dynamic question when left out (or null). */
export const ChoicesBody = Type.Object({
  variables: Type.Optional(Type.Union([Type.Array(Type.String()), Type.Null()], {
    errorMessage: 'Expected a list of variable names.',
    description: 'Every dynamic question when left out.',
  })),
}, { additionalProperties: true });

export type ChoicesRequest = Static<typeof ChoicesBody>;

export const dynamicChoicesSchemas: Record<string, MethodSchema> = {
  GET: { summary: 'The survey variables whose choices come from a source', response: { 200: Type.Object({ variables: Type.Array(Type.String()) }) } },
  POST: {
    summary: 'Resolve the dynamic choices of survey questions',
    description: 'Needs the permission to launch the template.',
    body: ChoicesBody,
    checkBody: true,
    response: { 200: Type.Record(Type.String(), Resolved, { description: 'By variable.' }) },
  },
  OPTIONS: OPTIONS_RESPONSE,
};
