/** Schemas of the dashboard endpoints: they describe what the console and other clients read. */
import { Type } from 'typebox';
import { OPTIONS_RESPONSE } from '../../api/action-schemas.ts';
import type { MethodSchema } from '../../api/route-schemas.ts';

const Count = Type.Object({
  url: Type.String(),
  total: Type.Integer(),
  failed: Type.Optional(Type.Integer()),
  failures_url: Type.Optional(Type.String()),
});

const Inventories = Type.Object({
  url: Type.String(),
  total: Type.Integer(),
  total_with_inventory_source: Type.Integer(),
  job_failed: Type.Integer({ description: 'Inventories with a host whose last job failed.' }),
  inventory_failed: Type.Integer({ description: 'Inventory sources whose last sync failed.' }),
});

const Steps = Type.Array(Type.Tuple([Type.Number({ description: 'Start of the step, seconds since the epoch (UTC).' }), Type.Integer()]));

export const dashboardSchemas: Record<string, MethodSchema> = {
  GET: {
    summary: 'Counts of what the caller may see, with failures',
    response: {
      200: Type.Object({
        related: Type.Object({ jobs_graph: Type.String() }),
        inventories: Inventories,
        groups: Type.Object({ url: Type.String(), total: Type.Integer(), inventory_failed: Type.Integer() }),
        hosts: Count,
        projects: Count,
        scm_types: Type.Record(Type.String(), Type.Object({ url: Type.String(), label: Type.String(), failures_url: Type.String(), total: Type.Integer(), failed: Type.Integer() })),
        users: Count,
        organizations: Count,
        teams: Count,
        credentials: Count,
        job_templates: Count,
      }),
    },
  },
  OPTIONS: OPTIONS_RESPONSE,
};

/** The jobs graph's schemas; `jobTypes`: the values of job_type (all, then the run kinds'). */
export const jobsGraphSchemas = (jobTypes: readonly string[]): Record<string, MethodSchema> => ({
  GET: {
    summary: 'Finished runs per day (per hour for a day) by status',
    querystring: Type.Object({
      period: Type.Optional(Type.Union([Type.Literal('month'), Type.Literal('two_weeks'), Type.Literal('week'), Type.Literal('day')])),
      job_type: Type.Optional(Type.Union(jobTypes.map((type) => Type.Literal(type)))),
    }),
    response: {
      200: Type.Object({ jobs: Type.Object({ successful: Steps, failed: Steps, canceled: Steps, error: Steps }) }),
    },
  },
  OPTIONS: OPTIONS_RESPONSE,
});
