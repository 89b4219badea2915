import { boolean, datetime, json, ref, text } from '../../api/fields.ts';
import { defineResource } from '../../api/resource.ts';
import { reverse, type Relation } from '../../api/relations.ts';
import { isEncryptedSecret } from '../../secrets/encryption.ts';
import { untilText } from './rrule-schedule.ts';
import { parseRrule } from './rrule-text.ts';
import { scheduleAccess } from './schedule-access.ts';
import { SCHEDULE_PROMPT_FIELDS } from './schedule-prompt-fields.ts';
import { checkSchedule } from './schedule-hooks.ts';
import { scheduleCredentials, scheduleInstanceGroups, scheduleLabels } from './schedule-relations.ts';
import { unifiedJobTypeOf } from '../../runs/run-services.ts';
import type { ScheduleRow } from '../../db/tables.ts';


/** The runs a schedule launched (AWX's /schedules/{id}/jobs/). */
const scheduleRuns: Relation = { ...reverse('unified_job', 'unified_jobs', 'schedule_id'), segment: 'jobs' };

/** timezone and until, read from the rule (AWX computes them on every read). */
function ruleFacts(rrule: string): { timezone: string; until: string } {
  const parsed = parseRrule(rrule);
  if ('problems' in parsed) return { timezone: '', until: '' };
  return { timezone: parsed.rrule.zone, until: untilText(parsed.rrule) };
}

/** Survey password answers (stored encrypted) read back as $encrypted$. */
function shownExtraData(row: ScheduleRow): Record<string, unknown> {
  const data = { ...(row.extra_data ?? {}) } as Record<string, unknown>;
  for (const [variable, value] of Object.entries(data)) if (isEncryptedSecret(value)) data[variable] = '$encrypted$';
  return data;
}

/** Schedules: a recurrence rule that launches a template with saved prompts (AWX's Schedule). */
export const schedules = defineResource<ScheduleRow>({
  name: 'schedule',
  table: 'schedules',
  label: 'Schedule List',
  description: 'Recurrence rules that launch a template at the times they name.',
  fields: {
    name: text({ required: true, maxLength: 512, allowBlank: false }),
    description: text(),
    unified_job_template: ref('unified_job_template', { required: true }),
    enabled: boolean({ default: true, helpText: 'Enables processing of this schedule.' }),
    rrule: text({ required: true, allowBlank: false, helpText: 'A value representing the schedules iCal recurrence rule.' }),
    extra_data: json({ default: {} }),
    ...SCHEDULE_PROMPT_FIELDS,
    dtstart: datetime({ readOnly: true, helpText: 'The first occurrence of the schedule occurs on or after this time.' }),
    dtend: datetime({ readOnly: true, helpText: 'The last occurrence of the schedule occurs before this time, aftewards the schedule expires.' }),
    next_run: datetime({ readOnly: true, helpText: 'The next time that the scheduled action will run.' }),
  },
  search: ['name', 'description'],
  // As AWX's SUMMARIZABLE_FK_FIELDS['schedule'] (a run's summary_fields.schedule).
  summaryColumns: ['id', 'name', 'description', 'next_run'],
  ordering: 'id',
  unique: [['unified_job_template', 'name']],
  related: {
    credentials: scheduleCredentials(),
    labels: scheduleLabels(),
    instance_groups: scheduleInstanceGroups(),
    unified_jobs: scheduleRuns,
  },
  access: scheduleAccess,
  hooks: { beforeWrite: checkSchedule },
  // The template of each schedule: its kind and list URL.
  prepare: async (db, rows, ctx) => {
    const kinds = await db.query<{ id: number; kind: string }>('SELECT id, kind FROM unified_job_templates WHERE id = ANY($1::int[])', [rows.map((r) => r.unified_job_template_id)]);
    return new Map(kinds.map((k) => [k.id, { plural: ctx.service.resources.get(k.kind).plural, unifiedJobType: unifiedJobTypeOf(ctx.service, k.kind) }]));
  },
  decorate: (row, out, prepared) => {
    Object.assign(out, ruleFacts(row.rrule), { extra_data: shownExtraData(row) });
    // AWX links the template's own URL and names its kind in the summary.
    const template = (prepared as Map<number, { plural: string; unifiedJobType: string | undefined }> | undefined)?.get(row.unified_job_template_id);
    if (!template) return;
    out.related = { ...(out.related as object), unified_job_template: `/api/v2/${template.plural}/${row.unified_job_template_id}/` };
    const summary = (out.summary_fields as Record<string, Record<string, unknown> | undefined>).unified_job_template;
    if (summary) summary.unified_job_type = template.unifiedJobType;
  },
});
