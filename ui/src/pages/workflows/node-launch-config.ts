/**
 * What a workflow node saves of its template's launch (AWX's workflow node prompts): loaded from the
 * template's launch/ description and survey, and the node's own saved credentials, labels and
 * instance groups.
 */
import { useQuery } from '@tanstack/react-query';
import { http } from '../../api/client';
import type { ResourceObject } from '../../api/types';
import { useObject } from '../../hooks/api-hooks';
import type { LaunchDescription, PromptingTemplate } from '../templates/launch/launch-plan';
import { loadChosen, NOTHING_CHOSEN, type Chosen } from '../templates/form/related-lists';
import type { RelatedList } from '../templates/form/template-layout';
import type { SurveySpec, SurveyQuestion } from '../templates/survey/survey-types';
import type { NodeKind, TemplateNode } from './workflow-graph';

export const NODE_LISTS: RelatedList[] = ['credentials', 'labels', 'instance_groups'];

/** The node kinds whose templates take prompts, and their list. */
const PROMPTING: Partial<Record<NodeKind, string>> = { job: 'job_templates', workflow_job: 'workflow_job_templates' };

export const promptingTemplateUrl = (kind: NodeKind, template: number | null) =>
  template && PROMPTING[kind] ? `/api/v2/${PROMPTING[kind]}/${template}/` : undefined;

export interface ConfigSource {
  loading: boolean;
  error: unknown;
  template?: PromptingTemplate;
  description: LaunchDescription | null;
  spec: SurveyQuestion[];
  /** What the node has saved in its lists (nothing for a node being added). */
  saved: Chosen;
}

export function useNodeConfigSource(node: TemplateNode | undefined, templateUrl: string | undefined): ConfigSource {
  const template = useObject<PromptingTemplate>(templateUrl);
  const launch = useQuery({ queryKey: [`${templateUrl}launch/`], queryFn: () => http.get<LaunchDescription>(`${templateUrl}launch/`), enabled: !!templateUrl, retry: false });
  const surveyUrl = templateUrl && template.data?.survey_enabled ? `${templateUrl}survey_spec/` : undefined;
  const survey = useQuery({ queryKey: [surveyUrl], queryFn: () => http.get<Partial<SurveySpec>>(surveyUrl!), enabled: !!surveyUrl });
  const lists = useQuery({ queryKey: [node?.url, 'related lists'], queryFn: () => loadChosen(node!.related as Record<string, string>, NODE_LISTS), enabled: !!node, gcTime: 0 });
  return {
    loading: (!!templateUrl && (template.isLoading || launch.isLoading || survey.isLoading)) || lists.isLoading,
    error: template.error ?? launch.error ?? survey.error ?? lists.error,
    template: template.data,
    description: templateUrl ? launch.data ?? null : null,
    spec: survey.data?.spec ?? [],
    saved: lists.data ?? NOTHING_CHOSEN,
  };
}

export const organizationOf = (template: ResourceObject<'job_templates' | 'workflow_job_templates'> | undefined): number | null =>
  template && typeof template.organization === 'number' ? template.organization : null;
