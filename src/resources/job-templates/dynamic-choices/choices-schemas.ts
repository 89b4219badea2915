/** Schemas of survey_spec/dynamic_choices/ (the body is read by resolve.ts, with AWX-shaped 400s). */
import { Type } from 'typebox';
import { OPTIONS_RESPONSE } from '../../../api/action-schemas.ts';
import type { MethodSchema } from '../../../api/route-schemas.ts';
import { SOURCE_TYPES } from './source-spec.ts';

const Resolved = Type.Object({
  choices: Type.Array(Type.String(), { maxItems: 500, description: 'Distinct; the first 500 the source gives.' }),
  source_type: Type.Enum([...SOURCE_TYPES]),
  error: Type.Optional(Type.String({ description: 'Why the source gave no choices (failure or timeout).' })),
});

export const dynamicChoicesSchemas: Record<string, MethodSchema> = {
  GET: { summary: 'The survey variables whose choices come from a source', response: { 200: Type.Object({ variables: Type.Array(Type.String()) }) } },
  POST: {
    summary: 'Resolve the dynamic choices of survey questions',
    description: 'Needs the permission to launch the template.',
    body: Type.Object({ variables: Type.Optional(Type.Array(Type.String(), { description: 'Every dynamic question when left out.' })) }),
    response: { 200: Type.Record(Type.String(), Resolved, { description: 'By variable.' }) },
  },
  OPTIONS: OPTIONS_RESPONSE,
};
