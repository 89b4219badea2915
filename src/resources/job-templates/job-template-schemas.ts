/** Schemas of a job template's survey_spec/ route (the survey is validated by survey-spec.ts, as AWX does). */
import { Type } from 'typebox';
import { OPTIONS_RESPONSE } from '../../api/action-schemas.ts';
import type { MethodSchema } from '../../api/route-schemas.ts';
import { QUESTION_TYPES } from './survey-spec.ts';

const Question = Type.Object(
  {
    question_name: Type.String(),
    question_description: Type.Optional(Type.String()),
    variable: Type.String({ description: 'The extra variable the answer sets.' }),
    type: Type.Enum([...QUESTION_TYPES]),
    required: Type.Optional(Type.Boolean()),
    default: Type.Optional(Type.Unknown({ description: 'A password default is stored encrypted and read back as $encrypted$.' })),
    min: Type.Optional(Type.Integer()),
    max: Type.Optional(Type.Integer()),
    choices: Type.Optional(Type.Union([Type.Array(Type.String()), Type.String({ description: 'One choice a line.' })])),
  },
  { additionalProperties: true },
);

export const SurveySpecBody = Type.Object({ name: Type.String(), description: Type.String(), spec: Type.Array(Question, { minItems: 1 }) });

const SURVEY_ERROR = Type.Object({ error: Type.String() });

export const surveySpecSchemas: Record<string, MethodSchema> = {
  GET: { summary: 'The survey of the job template', response: { 200: Type.Union([SurveySpecBody, Type.Object({})]) } },
  POST: { summary: 'Replace the survey', body: SurveySpecBody, response: { 200: { type: 'null', description: 'Stored.' }, 400: SURVEY_ERROR } },
  DELETE: { summary: 'Remove the survey', response: { 200: { type: 'null', description: 'Removed.' } } },
  OPTIONS: OPTIONS_RESPONSE,
};
