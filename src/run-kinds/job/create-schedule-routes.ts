/**
 * GET, POST /jobs/{id}/create_schedule/ (AWX's JobCreateSchedule): a disabled monthly schedule of
 * the job's template that launches it again with what the job was prompted for (the values that
 * differ from the template's where the template asks for them), its credentials and labels.
 */
import { createObject } from '../../api/crud.ts';
import { ApiError } from '../../api/errors.ts';
import type { RouteModule } from '../../api/extra-routes.ts';
import { viewOptions } from '../../api/options.ts';
import { objectPermission } from '../../api/permissions.ts';
import { routeMethods } from '../../api/resource-routes.ts';
import { serializeRow } from '../../api/serialize.ts';
import type { Queryable, Row } from '../../db/database.ts';
import type { JobRow, JobTemplateRow, ScheduleRow } from '../../db/tables.ts';
import { parseVariables } from '../../inventory/variables.ts';
import { passwordsNeededFor } from '../../ansible/credential-passwords.ts';
import { templateLinks } from './template-links.ts';
import { asks } from '../../runs/prompts.ts';
import { JOB_TEMPLATE_PROMPTS } from './prompts.ts';

const prompt = (field: string) => JOB_TEMPLATE_PROMPTS.find((p) => p.field === field)!;

async function linkedIds(db: Queryable, sql: string, jobId: number): Promise<number[]> {
  return (await db.query<{ id: number }>(sql, [jobId])).map((r) => r.id);
}

/** The job's launch prompts as a schedule's fields (null when the template has no say or the job kept its value). */
function promptsOf(job: JobRow & Row, template: JobTemplateRow & Row): Record<string, unknown> {
  const values: Record<string, unknown> = {};
  for (const spec of JOB_TEMPLATE_PROMPTS) {
    if (spec.shape === 'column' && asks(template, spec) && job[spec.column!] !== template[spec.column!]) values[spec.field] = job[spec.column!];
  }
  const templateVars = parseVariables(template.extra_vars);
  const extra = Object.fromEntries(Object.entries(parseVariables(job.extra_vars)).filter(([k, v]) => JSON.stringify(templateVars[k]) !== JSON.stringify(v)));
  values.extra_data = extra;
  return values;
}

async function uniqueName(db: Queryable, jobId: number): Promise<string> {
  const base = `Auto-generated schedule from job ${jobId}`;
  const taken = new Set((await db.query<{ name: string }>('SELECT name FROM schedules WHERE name LIKE $1', [`${base}%`])).map((r) => r.name));
  if (!taken.has(base)) return base;
  let n = 1;
  while (taken.has(`${base} - number ${n}`)) n++;
  return `${base} - number ${n}`;
}

export const createScheduleRoutes: RouteModule = (app, services) => {
  const { db } = services;
  routeMethods<JobRow>(app, '/api/v2/jobs/:id/create_schedule/', objectPermission('job', { GET: 'relaunch', POST: 'relaunch' }), {
    GET: async (request) => ({ can_schedule: request.object.job_template_id !== null, prompts: {} }),
    POST: async (request, reply) => {
      const job = request.object;
      const schedule = await db.transaction(async (tx) => {
        const [template] = await tx.query<JobTemplateRow>('SELECT * FROM job_templates WHERE id = $1', [job.job_template_id]);
        if (!template) throw new ApiError(400, { error: 'Cannot create schedule because a related resource is missing.' });
        const credentials = await linkedIds(tx, 'SELECT credential_id AS id FROM unified_job_credentials WHERE unified_job_id = $1 ORDER BY 1', job.id);
        if ((await passwordsNeededFor(tx, credentials)).length) {
          throw new ApiError(400, { error: 'Cannot create schedule because job requires credential passwords.' });
        }
        const stamp = new Date().toISOString().replace(/[-:]/g, '').slice(0, 15);
        const values = { name: await uniqueName(tx, job.id), unified_job_template: template.id, enabled: false, rrule: `DTSTART:${stamp}Z RRULE:FREQ=MONTHLY;INTERVAL=1`, ...promptsOf(job, template) };
        const created = await createObject<ScheduleRow>(tx, request.ctx, services.resources.get('schedule'), values);
        const defaults = await templateLinks(tx, template.id);
        if (asks(template, prompt('credentials')) && credentials.join() !== defaults.credentialIds.join()) {
          await tx.query('INSERT INTO schedule_credentials (schedule_id, credential_id) SELECT $1, unnest($2::int[])', [created.id, credentials]);
        }
        const labels = await linkedIds(tx, 'SELECT label_id AS id FROM job_labels WHERE job_id = $1 ORDER BY 1', job.id);
        if (asks(template, prompt('labels')) && labels.join() !== defaults.labelIds.join()) {
          await tx.query('INSERT INTO schedule_labels (schedule_id, label_id) SELECT $1, unnest($2::int[])', [created.id, labels]);
        }
        return created;
      });
      return reply.code(201).send(await serializeRow(db, request.ctx, services.resources.get('schedule'), schedule));
    },
    OPTIONS: async () => viewOptions('Job Create Schedule', 'POST: a disabled monthly schedule of the job template with the prompts this job was launched with.'),
  }, {
    GET: { summary: 'Whether a schedule can be made from the job' },
    POST: { summary: 'Create a schedule from the job' },
  });
};
