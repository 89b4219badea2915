/** Any object's id and type (`type` as the API writes it; read from summaries it is a plain string). */
type Typed = { id: number; type: string };

/** Console path segment of each kind of run (the API's list of that kind). */
export const RUN_SEGMENTS: Record<string, string> = {
  job: 'jobs',
  ad_hoc_command: 'ad_hoc_commands',
  project_update: 'project_updates',
  inventory_update: 'inventory_updates',
  workflow_job: 'workflow_jobs',
  system_job: 'system_jobs',
  workflow_approval: 'workflow_approvals',
};

export const runPath = (run: Typed) => `/${RUN_SEGMENTS[run.type] ?? 'jobs'}/${run.id}`;

/** Console path of a template of any kind (unified_job_templates). */
const TEMPLATE_SEGMENTS: Record<string, string> = {
  job_template: 'job_templates',
  workflow_job_template: 'workflow_job_templates',
  project: 'projects',
  inventory_source: 'inventory_sources',
  system_job_template: 'system_job_templates',
  workflow_approval_template: 'workflow_approval_templates',
};
export const templatePath = (t: Typed) => `/${TEMPLATE_SEGMENTS[t.type] ?? 'job_templates'}/${t.id}`;

const PLURALS: Record<string, string> = { inventory: 'inventories', activity_stream: 'activity_stream', ...RUN_SEGMENTS, ...TEMPLATE_SEGMENTS };

/** Console path of an object of any type. */
export const objectPath = (type: string, id: number) => `/${PLURALS[type] ?? `${type}s`}/${id}`;
