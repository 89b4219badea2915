import { useQuery } from '@tanstack/react-query';
import { DescriptionListDescription, DescriptionListGroup, DescriptionListTerm, Label, LabelGroup } from '@patternfly/react-core';
import { PROMPT_META } from '../templates/launch/LaunchSteps';
import { SCHEDULE_PROMPTS } from '../schedules/SchedulePrompts';
import { loadChosen } from '../templates/form/related-lists';
import { NODE_LISTS } from './node-launch-config';
import type { TemplateNode } from './workflow-graph';

/** Query key part of a node's saved lists, so that saving a node refreshes them. */
export const NODE_PROMPT_LISTS = 'node prompt lists';

const REFERENCES: Record<string, string> = { inventory: 'Inventory', execution_environment: 'Execution environment' };

function shown(field: string, value: unknown): string {
  const choices = PROMPT_META[field]?.choices;
  const choice = choices?.find(([v]) => v === value);
  if (choice) return String(choice[1]);
  if (typeof value === 'boolean') return value ? 'On' : 'Off';
  return String(value);
}

/** What a node launches its template with (its saved prompts), as description list rows; none when it saves nothing. */
export function NodePromptsDetail({ node }: { node: TemplateNode }) {
  const lists = useQuery({ queryKey: [node.url, NODE_PROMPT_LISTS], queryFn: () => loadChosen(node.related as Record<string, string>, NODE_LISTS) });
  const summary = (node.summary_fields ?? {}) as Record<string, { name?: string } | undefined>;
  const fields = SCHEDULE_PROMPTS.map(([f]) => f).filter((f) => node[f] !== null && node[f] !== undefined && node[f] !== '');
  const extra = (node.extra_data ?? {}) as Record<string, unknown>;
  const row = (term: string, description: React.ReactNode) => (
    <DescriptionListGroup key={term}>
      <DescriptionListTerm>{term}</DescriptionListTerm>
      <DescriptionListDescription>{description}</DescriptionListDescription>
    </DescriptionListGroup>
  );
  const chips = (label: string, names: string[]) => (
    <LabelGroup aria-label={label} numLabels={5}>
      {names.map((n) => <Label key={n} isCompact>{n}</Label>)}
    </LabelGroup>
  );
  return (
    <>
      {fields.map((f) => row(REFERENCES[f] ?? PROMPT_META[f]?.label ?? f, REFERENCES[f] ? summary[f]?.name ?? `#${String(node[f])}` : shown(f, node[f])))}
      {lists.data?.credentials.length ? row('Credentials', chips('Node credentials', lists.data.credentials.map((c) => c.name))) : null}
      {lists.data?.labels.length ? row('Labels', chips('Node labels', lists.data.labels.map((l) => l.name))) : null}
      {lists.data?.instance_groups.length ? row('Instance groups', chips('Node instance groups', lists.data.instance_groups.map((g) => g.name))) : null}
      {Object.keys(extra).length ? row('Extra variables', <code className="drover-mono" style={{ whiteSpace: 'pre-wrap' }}>{JSON.stringify(extra, null, 2)}</code>) : null}
    </>
  );
}
