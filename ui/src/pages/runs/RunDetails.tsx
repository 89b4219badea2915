import type { ReactNode } from 'react';
import { Link } from 'react-router';
import { DescriptionList, DescriptionListDescription, DescriptionListGroup, DescriptionListTerm, Label, LabelGroup } from '@patternfly/react-core';
import type { FieldOf, ResourceObject } from '../../api/types';
import { useOptions } from '../../hooks/api-hooks';
import { StatusLabel, formatDate } from '../../components/cells';
import { formatDuration } from '../../components/duration';
import { templatePath } from '../../resources/run-paths';
import type { Run } from './run-kinds';
import { runTypeLabel } from './run-types';
import { LaunchedBy } from './LaunchedBy';
import { useElapsed } from './RunHeader';

type Summary = { id?: number; name?: string } | undefined;
type Detail = [term: string, value: ReactNode];

/** AWX's verbosity levels as its console names them. */
const VERBOSITY: Record<FieldOf<'jobs', 'verbosity'>, string> = {
  0: '0 (Normal)',
  1: '1 (Verbose)',
  2: '2 (More verbose)',
  3: '3 (Debug)',
  4: '4 (Connection debug)',
  5: '5 (WinRM debug)',
};

const linkTo = (summary: Summary, path: (id: number) => string) => (summary?.id ? <Link to={path(summary.id)}>{summary.name ?? `#${summary.id}`}</Link> : null);
const code = (text: string) => <pre className="drover-mono" style={{ whiteSpace: 'pre-wrap', margin: 0 }}>{text}</pre>;
const json = (value: unknown) => (value && typeof value === 'object' && Object.keys(value).length ? code(JSON.stringify(value, null, 2)) : null);
const variables = (text: unknown) => (typeof text === 'string' && text.trim() && !/^\s*(\{\s*\}|---\s*)?\s*$/.test(text) ? code(text) : null);
const revision = (value: unknown) => (typeof value === 'string' && value ? <span className="drover-mono">{value}</span> : null);

/** A credential's kind as AWX's credential chips name it: SSH, Cloud, Vault... */
const kindName = (c: { kind?: string; cloud?: boolean }) => (c.cloud ? 'Cloud' : c.kind === 'ssh' ? 'SSH' : c.kind ? c.kind.charAt(0).toUpperCase() + c.kind.slice(1) : '');

function credentials(summaries: unknown) {
  const list = (Array.isArray(summaries) ? summaries : []) as { id: number; name: string; kind?: string; cloud?: boolean }[];
  if (!list.length) return null;
  return (
    <LabelGroup aria-label="Credentials" numLabels={10}>
      {list.map((c) => (
        <Label key={c.id} isCompact render={({ className, content }) => <Link className={className} to={`/credentials/${c.id}`}>{content}</Link>}>
          {kindName(c) ? `${kindName(c)}: ${c.name}` : c.name}
        </Label>
      ))}
    </LabelGroup>
  );
}

function labels(summary: unknown) {
  const list = ((summary as { results?: { id: number; name: string }[] } | undefined)?.results ?? []);
  if (!list.length) return null;
  return (
    <LabelGroup aria-label="Labels" numLabels={10}>
      {list.map((l) => (
        <Label key={l.id} color="blue" isCompact>
          {l.name}
        </Label>
      ))}
    </LabelGroup>
  );
}

/** The details only one kind of run has, in AWX's order. */
function kindDetails(run: Run, choice: (field: string, value: unknown) => string | null): Detail[] {
  const s = run.summary_fields as Record<string, Summary | unknown>;
  const inventory: Detail = ['Inventory', linkTo(s.inventory as Summary, (id) => `/inventories/${id}`)];
  switch (run.type) {
    case 'job': {
      const job = run as ResourceObject<'jobs'>;
      return [
        ['Template', linkTo(s.job_template as Summary, (id) => `/job_templates/${id}`)],
        ['Job type', choice('job_type', job.job_type)],
        inventory,
        ['Project', linkTo(s.project as Summary, (id) => `/projects/${id}`)],
        ['Revision', revision(job.scm_revision)],
        ['Branch', job.scm_branch || null],
        ['Playbook', job.playbook || null],
        ['Limit', job.limit || null],
        ['Forks', job.forks || null],
        ['Verbosity', VERBOSITY[job.verbosity]],
        ['Job tags', job.job_tags || null],
        ['Skip tags', job.skip_tags || null],
        ['Job slice', job.job_slice_count > 1 ? `${job.job_slice_number} of ${job.job_slice_count}` : null],
        ['Credentials', credentials(s.credentials)],
        ['Labels', labels(s.labels)],
        ['Extra variables', variables(job.extra_vars)],
        ['Artifacts', json(job.artifacts)],
      ];
    }
    case 'ad_hoc_command': {
      const command = run as ResourceObject<'ad_hoc_commands'>;
      return [
        ['Module', <span className="drover-mono">{command.module_name}</span>],
        ['Arguments', command.module_args ? <span className="drover-mono">{command.module_args}</span> : null],
        inventory,
        ['Limit', command.limit || null],
        ['Credential', linkTo(s.credential as Summary, (id) => `/credentials/${id}`)],
        ['Forks', command.forks || null],
        ['Verbosity', VERBOSITY[command.verbosity]],
        ['Privilege escalation', command.become_enabled ? 'On' : null],
        ['Extra variables', variables(command.extra_vars)],
      ];
    }
    case 'project_update': {
      const update = run as ResourceObject<'project_updates'>;
      return [
        ['Project', linkTo(s.project as Summary, (id) => `/projects/${id}`)],
        ['Source control type', choice('scm_type', update.scm_type)],
        ['Source control URL', update.scm_url ? <span className="drover-mono">{update.scm_url}</span> : null],
        ['Branch', update.scm_branch || null],
        ['Refspec', update.scm_refspec || null],
        ['Revision', revision(update.scm_revision)],
        ['Credential', linkTo(s.credential as Summary, (id) => `/credentials/${id}`)],
      ];
    }
    case 'inventory_update': {
      const update = run as ResourceObject<'inventory_updates'>;
      return [
        ['Inventory source', linkTo(s.inventory_source as Summary, (id) => `/inventory_sources/${id}`)],
        inventory,
        ['Source', choice('source', update.source)],
        ['Project', linkTo(s.source_project as Summary, (id) => `/projects/${id}`)],
        ['Inventory file', update.source_path || null],
        ['Revision', revision(update.scm_revision)],
        ['Credential', linkTo(s.credential as Summary, (id) => `/credentials/${id}`)],
        ['Overwrite', update.overwrite ? 'Hosts and groups not in the source are removed' : null],
        ['Overwrite variables', update.overwrite_vars ? 'On' : null],
        ['Limit', update.limit || null],
      ];
    }
    case 'workflow_job': {
      const workflow = run as ResourceObject<'workflow_jobs'>;
      return [
        ['Template', linkTo(s.workflow_job_template as Summary, (id) => `/workflow_job_templates/${id}`)],
        inventory,
        ['Limit', workflow.limit || null],
        ['Branch', workflow.scm_branch || null],
        ['Job tags', workflow.job_tags || null],
        ['Skip tags', workflow.skip_tags || null],
        ['Labels', labels(s.labels)],
        ['Extra variables', variables(workflow.extra_vars)],
      ];
    }
    case 'system_job': {
      const system = run as ResourceObject<'system_jobs'>;
      return [
        ['Template', linkTo(s.system_job_template as Summary, (id) => templatePath({ id, type: 'system_job_template' }))],
        ['Job type', choice('job_type', system.job_type)],
        ['Extra variables', variables(system.extra_vars)],
      ];
    }
    default:
      return [];
  }
}

/** A run's Details tab: what it ran, where, who launched it and how it went, as AWX's job details show it. */
export function RunDetails({ run }: { run: Run }) {
  const options = useOptions(run.url);
  const meta = options.data?.actions?.GET ?? {};
  const choice = (field: string, value: unknown) => {
    if (value === '' || value === null || value === undefined) return null;
    const label = String(meta[field]?.choices?.find(([v]) => v === value)?.[1] ?? value);
    return label.charAt(0).toUpperCase() + label.slice(1);
  };
  const elapsed = useElapsed(run);
  const s = run.summary_fields as Record<string, Summary>;
  const explanation = [run.job_explanation, run.status === 'error' ? run.result_traceback : ''].filter(Boolean).join('\n');
  const details: Detail[] = [
    ['Status', <StatusLabel status={run.status} />],
    ['Type', runTypeLabel(run.type)],
    ...kindDetails(run, choice),
    ['Launched by', <LaunchedBy run={run} />],
    ['Started', run.started ? formatDate(run.started) : null],
    ['Finished', run.finished ? formatDate(run.finished) : null],
    ['Elapsed', elapsed === null ? null : formatDuration(elapsed)],
    ['Explanation', explanation ? code(explanation) : null],
    ['Execution node', run.execution_node || null],
    ['Instance group', linkTo(s.instance_group, (id) => `/instance_groups/${id}`)],
    ['Execution environment', linkTo(s.execution_environment, (id) => `/execution_environments/${id}`)],
    ['Organization', linkTo(s.organization, (id) => `/organizations/${id}`)],
  ];
  const shown = details.filter(([, value]) => value !== null && value !== undefined && value !== '');
  return (
    <DescriptionList isCompact columnModifier={{ default: '1Col', md: '2Col', xl: '3Col' }} aria-label="Details">
      {shown.map(([term, value]) => (
        <DescriptionListGroup key={term}>
          <DescriptionListTerm>{term}</DescriptionListTerm>
          <DescriptionListDescription data-field={term.toLowerCase().replace(/ /g, '_')}>{value}</DescriptionListDescription>
        </DescriptionListGroup>
      ))}
    </DescriptionList>
  );
}
