import { Link } from 'react-router';
import type { ResourceObject } from '../api/types';
import { templatePath } from '../resources/run-paths';

/** The template a schedule or run belongs to (summary_fields.unified_job_template). */
export function SummaryTemplate({ object }: { object: ResourceObject<'schedules'> }) {
  const t = object.summary_fields?.unified_job_template as { id?: number; name?: string; unified_job_type?: string; type?: string } | undefined;
  if (!t?.id) return <>–</>;
  const type = t.type ?? ({ job: 'job_template', workflow_job: 'workflow_job_template', project_update: 'project', inventory_update: 'inventory_source', system_job: 'system_job_template' }[t.unified_job_type ?? ''] ?? 'job_template');
  return <Link to={templatePath({ id: t.id, type })}>{t.name}</Link>;
}
