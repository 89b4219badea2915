/** The prompts a node dialog edits for its template, kept while the template stays and started afresh when it changes. */
import { useState } from 'react';
import { initialPrompts, promptsBody } from '../schedules/launch-config';
import { SCHEDULE_PROMPTS, type PromptValues } from '../schedules/SchedulePrompts';
import { askedLists } from '../schedules/ScheduleRelated';
import { loadChosen, type Chosen } from '../templates/form/related-lists';
import type { NodeConfig } from './workflow-api';
import { NODE_LISTS, organizationOf, promptingTemplateUrl, useNodeConfigSource } from './node-launch-config';
import { kindOf, templateOf, type NodeKind, type TemplateNode } from './workflow-graph';

export function useNodeConfig(node: TemplateNode | undefined, kind: NodeKind, template: number | null) {
  const templateUrl = promptingTemplateUrl(kind, template);
  const source = useNodeConfigSource(node, templateUrl);
  // The node's saved prompts are its template's: another template starts with none.
  const same = !!node && kindOf(node) === kind && templateOf(node)?.id === template;
  const lists = askedLists(source.description);
  const start = (): { prompts: PromptValues; chosen: Chosen } => ({
    prompts: initialPrompts(same ? (node as Record<string, unknown>) : undefined, source.spec),
    chosen: {
      credentials: same && lists.includes('credentials') ? source.saved.credentials : [],
      labels: same && lists.includes('labels') ? source.saved.labels : [],
      instance_groups: same && lists.includes('instance_groups') ? source.saved.instance_groups : [],
    },
  });
  const key = `${templateUrl}:${source.loading}:${source.spec.map((q) => q.variable).join(',')}`;
  const [loadedFor, setLoadedFor] = useState(key);
  const [prompts, setPrompts] = useState(() => start().prompts);
  const [chosen, setChosen] = useState(() => start().chosen);
  const [baseline, setBaseline] = useState<Chosen>(source.saved);
  if (loadedFor !== key) {
    setLoadedFor(key);
    const fresh = start();
    setPrompts(fresh.prompts);
    setChosen(fresh.chosen);
    setBaseline(source.saved);
  }

  /** What saving sends, or the problems to fix first. Prompts the template no longer asks for are cleared. */
  const build = (): { problems: Record<string, string>; config?: NodeConfig } => {
    if (!templateUrl) return { problems: {} };
    const { problems, fields, extra } = promptsBody(source.description, source.spec, prompts, false);
    if (Object.keys(problems).length) return { problems };
    const stale = Object.fromEntries(SCHEDULE_PROMPTS.filter(([f]) => !(f in fields) && node?.[f] != null).map(([f]) => [f, null]));
    return {
      problems,
      config: { fields: { ...stale, ...fields }, extra, lists: NODE_LISTS, before: baseline, after: chosen, organization: organizationOf(source.template) },
    };
  };

  /** After a refused list change, what the node holds now is where the next save starts. */
  const reloadBaseline = async () => {
    if (node) setBaseline(await loadChosen(node.related as Record<string, string>, NODE_LISTS));
  };

  return { templateUrl, source, lists, prompts, setPrompts, chosen, setChosen, build, reloadBaseline, organization: organizationOf(source.template) };
}
