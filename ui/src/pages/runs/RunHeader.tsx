import { useEffect, useState } from 'react';
import { Link } from 'react-router';
import { DescriptionList, DescriptionListDescription, DescriptionListGroup, DescriptionListTerm } from '@patternfly/react-core';
import type { Run } from './run-kinds';
import { formatDate } from '../../components/cells';
import { templatePath } from '../../resources/run-paths';
import { isActive } from './run-kinds';
import { formatDuration } from '../../components/duration';
import { LaunchedBy } from './LaunchedBy';

/** The template each kind of run comes from: its summary field and the template's type. */
const TEMPLATE_OF: Record<string, [field: string, type: string]> = {
  job: ['job_template', 'job_template'],
  workflow_job: ['workflow_job_template', 'workflow_job_template'],
  project_update: ['project', 'project'],
  inventory_update: ['inventory_source', 'inventory_source'],
  system_job: ['system_job_template', 'system_job_template'],
};

type Summary = { id?: number; name?: string } | undefined;

/** Seconds the run has taken: its elapsed once finished, counted from its start while it runs. */
export function useElapsed(run: Run): number | null {
  const active = isActive(run) && typeof run.started === 'string';
  const [now, setNow] = useState(() => Date.now());
  useEffect(() => {
    if (!active) return;
    const timer = setInterval(() => setNow(Date.now()), 1_000);
    return () => clearInterval(timer);
  }, [active]);
  if (active) return (now - new Date(run.started as string).getTime()) / 1000;
  return typeof run.elapsed === 'number' && run.started ? run.elapsed : null;
}

function Item({ term, children }: { term: string; children: React.ReactNode }) {
  return (
    <DescriptionListGroup>
      <DescriptionListTerm>{term}</DescriptionListTerm>
      <DescriptionListDescription>{children}</DescriptionListDescription>
    </DescriptionListGroup>
  );
}

const linked = (summary: Summary, to: string) => (summary?.id ? <Link to={to}>{summary.name ?? `#${summary.id}`}</Link> : null);

/** When the run ran, what it ran and who started it. */
export function RunHeader({ run }: { run: Run }) {
  const elapsed = useElapsed(run);
  const s = run.summary_fields;
  const [templateField, templateType] = TEMPLATE_OF[run.type] ?? [];
  const template = templateField ? (s[templateField] as Summary) : undefined;
  const inventory = s.inventory as Summary;
  const project = run.type === 'project_update' ? undefined : (s.project as Summary);
  return (
    <DescriptionList isCompact isHorizontal isAutoFit autoFitMinModifier={{ default: '16rem' }} aria-label="Run summary" className="drover-run-summary">
      <Item term="Started">{formatDate(run.started)}</Item>
      <Item term="Finished">{formatDate(run.finished)}</Item>
      <Item term="Elapsed">
        <span data-field="elapsed">{elapsed === null ? '–' : formatDuration(elapsed)}</span>
      </Item>
      {template?.id && <Item term="Template">{linked(template, templatePath({ id: template.id, type: templateType }))}</Item>}
      {inventory?.id && <Item term="Inventory">{linked(inventory, `/inventories/${inventory.id}`)}</Item>}
      {project?.id && <Item term="Project">{linked(project, `/projects/${project.id}`)}</Item>}
      <Item term="Launched by">
        <LaunchedBy run={run} />
      </Item>
    </DescriptionList>
  );
}
