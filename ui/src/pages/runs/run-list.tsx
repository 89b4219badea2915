import { DescriptionList, DescriptionListDescription, DescriptionListGroup, DescriptionListTerm } from '@patternfly/react-core';
import type { Column, ListFilter } from '../../resources/types';
import type { Run, RunKey } from './run-kinds';
import { formatDate } from '../../components/cells';
import { formatDuration } from '../../components/duration';
import { enumKeys } from '../../api/enums';
import { RUN_TYPE_LABELS, runTypeLabel } from './run-types';
import { LaunchedBy } from './LaunchedBy';

export const launchedByColumn: Column<Run> = { field: 'launched_by', label: 'Launched by', wide: true, render: (run) => <LaunchedBy run={run} /> };
export const runTypeColumn: Column<Run> = { field: 'type', label: 'Type', sort: true, wide: true, render: (run) => runTypeLabel(run.type) };

/** The field naming the template each list's runs come from (the unified list names any kind's). */
const TEMPLATE_FIELD: Partial<Record<RunKey, string>> = {
  unified_jobs: 'unified_job_template',
  jobs: 'job_template',
  workflow_jobs: 'workflow_job_template',
  project_updates: 'project',
  inventory_updates: 'inventory_source',
  system_jobs: 'system_job_template',
};
/** Lists whose runs name an inventory, and a project. */
const WITH_INVENTORY = new Set<RunKey>(['jobs', 'ad_hoc_commands', 'inventory_updates', 'workflow_jobs']);
const WITH_PROJECT = new Set<RunKey>(['jobs', 'project_updates']);

/** What operators filter runs on (AWX's job list search columns); the advanced search reaches the rest. */
export function runFilters(key: RunKey): ListFilter[] {
  const template = TEMPLATE_FIELD[key];
  return [
    { key: 'name__icontains', label: 'Name' },
    { key: 'id', label: 'ID', input: 'number' },
    { key: 'status', label: 'Status', choicesOf: 'status' },
    ...(key === 'unified_jobs' ? [{ key: 'type', label: 'Type', choices: enumKeys(RUN_TYPE_LABELS).map((t): [string, string] => [t, RUN_TYPE_LABELS[t]]) }] : []),
    { key: 'created_by__username__icontains', label: 'Launched by (username)' },
    ...(template ? [{ key: `${template}__name__icontains`, label: key === 'project_updates' ? 'Project' : 'Template' }] : []),
    ...(WITH_INVENTORY.has(key) ? [{ key: 'inventory__name__icontains', label: 'Inventory' }] : []),
    ...(WITH_PROJECT.has(key) && key !== 'project_updates' ? [{ key: 'project__name__icontains', label: 'Project' }] : []),
    { key: 'started__gte', label: 'Started after', input: 'datetime' },
    { key: 'started__lte', label: 'Started before', input: 'datetime' },
    { key: 'finished__gte', label: 'Finished after', input: 'datetime' },
    { key: 'finished__lte', label: 'Finished before', input: 'datetime' },
  ];
}

type Summary = { id?: number; name?: string } | undefined;

/** A run's row, expanded: a few details beyond the columns (AWX's expandable job rows). */
export function RunRowDetails({ run }: { run: Run }) {
  const s = run.summary_fields as Record<string, Summary>;
  const template = s.job_template ?? s.workflow_job_template ?? s.unified_job_template ?? s.project ?? s.inventory_source ?? s.system_job_template;
  const details: [string, string | null][] = [
    ['Type', runTypeLabel(run.type)],
    ['Template', template?.name ?? null],
    ['Inventory', s.inventory?.name ?? null],
    ['Project', run.type === 'project_update' ? null : s.project?.name ?? null],
    ['Execution node', run.execution_node || null],
    ['Created', formatDate(run.created)],
    ['Elapsed', run.started && typeof run.elapsed === 'number' ? formatDuration(run.elapsed) : null],
    ['Explanation', run.job_explanation || null],
  ];
  return (
    <DescriptionList isCompact isHorizontal columnModifier={{ default: '1Col', md: '2Col' }} aria-label={`Details of ${run.id}`}>
      {details.filter(([, v]) => v).map(([term, value]) => (
        <DescriptionListGroup key={term}>
          <DescriptionListTerm>{term}</DescriptionListTerm>
          <DescriptionListDescription>{value}</DescriptionListDescription>
        </DescriptionListGroup>
      ))}
    </DescriptionList>
  );
}
