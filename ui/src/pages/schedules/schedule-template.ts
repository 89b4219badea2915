import type { ResourceObject } from '../../api/types';

/** The objects a schedule may launch, as their own resources serialize them. */
export type SchedulableTemplate = ResourceObject<'job_templates' | 'workflow_job_templates' | 'projects' | 'inventory_sources' | 'system_job_templates'>;

/** Kinds of template a schedule may launch: the console's query key, the API list. */
export const SCHEDULABLE: [kind: string, label: string, list: string][] = [
  ['job_template', 'Job template', 'job_templates'],
  ['workflow_job_template', 'Workflow template', 'workflow_job_templates'],
  ['project', 'Project', 'projects'],
  ['inventory_source', 'Inventory source', 'inventory_sources'],
  ['system_job_template', 'Management job', 'system_job_templates'],
];

const RUN_TO_TEMPLATE: Record<string, string> = {
  job: 'job_template',
  workflow_job: 'workflow_job_template',
  project_update: 'project',
  inventory_update: 'inventory_source',
  system_job: 'system_job_template',
};

/**
 * Query keys naming the template: the kinds themselves (a template's Schedules tab adds with its
 * type), and unified_job_template (its kind is then looked up).
 */
const QUERY_KEYS: [key: string, kind: string][] = [
  ...SCHEDULABLE.map(([kind]): [string, string] => [kind, kind]),
  ['unified_job_template', 'unified_job_template'],
];

export const templateUrl = (kind: string, id: number) => {
  const list = SCHEDULABLE.find(([k]) => k === kind)?.[2];
  return list ? `/api/v2/${list}/${id}/` : undefined;
};

/**
 * The template a schedule form is for: the schedule's own when editing, else the one the query
 * names (a template's Schedules tab adds with ?job_template=<id>, ?project=<id>...).
 */
export function scheduledTemplate(object: ResourceObject<'schedules'> | undefined, query: URLSearchParams): { kind: string; id: number } | null {
  if (object) {
    const t = object.summary_fields?.unified_job_template as { id?: number; type?: string; unified_job_type?: string } | undefined;
    const kind = t?.type ?? RUN_TO_TEMPLATE[t?.unified_job_type ?? ''];
    return t?.id && kind ? { kind, id: t.id } : null;
  }
  for (const [key, kind] of QUERY_KEYS) {
    const id = Number(query.get(key));
    if (Number.isInteger(id) && id > 0) return { kind, id };
  }
  return null;
}
