/** The body of POST /system_job_templates/{id}/launch/ (AWX's SystemJobLaunchSerializer), checked before the launch. */
import { Type, type Static } from 'typebox';
import { AnyObject, OPTIONS_RESPONSE } from '../../api/action-schemas.ts';
import type { MethodSchema } from '../../api/route-schemas.ts';

/** extra_vars as an object, or JSON or YAML text; which variables a job type takes is the launcher's to check. */
export const SystemLaunchBodySchema = Type.Object({
  extra_vars: Type.Optional(Type.Union([AnyObject, Type.String(), Type.Null()], {
    errorMessage: 'Expected a dictionary of variables.',
    description: 'For cleanup jobs, {"days": N}: how many days of data to keep.',
  })),
}, { additionalProperties: true });

export type SystemLaunchBody = Static<typeof SystemLaunchBodySchema>;

export const systemLaunchSchemas: Record<string, MethodSchema> = {
  GET: { summary: 'What a system job launch asks' },
  POST: { summary: 'Launch a system job', body: SystemLaunchBodySchema, checkBody: true },
  OPTIONS: OPTIONS_RESPONSE,
};
